import { glideJavaClasspath, javac, JVM_FLAGS } from '../../harness/toolchains';
import { indent, type Proof } from './proof';

// The snippet makes its Script objects once (its part up to the lock code), then takes the lock
// once per round, as a user would keep them.
const LOCK_CODE = '\nString lockKey = ';

export const proof: Proof = {
  client: 'glide-java',
  file: 'Proof.java',
  // Compiled once against the pinned GLIDE jar (test/proofs/glide/pom.xml); one JVM per process.
  async build(path) {
    const classpath = await javac(`${path}.build`, [path], [], await glideJavaClasspath());
    return ['java', ...JVM_FLAGS, '-cp', classpath, 'Proof'];
  },
  program: (snippet, after) => {
    const split = snippet.indexOf(LOCK_CODE);
    if (split < 0) throw new Error(`glide-java snippet has no '${LOCK_CODE.trim()}' after its scripts`);
    return `import glide.api.GlideClient;
import glide.api.models.Script;
import glide.api.models.commands.ScriptOptions;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicBoolean;

final class Proof {
    public static void main(String[] argv) throws Exception {
        URI url = URI.create(argv[0]);
        NodeAddress address = NodeAddress.builder().host(url.getHost()).port(url.getPort()).build();
        // GLIDE's default request timeout (250 ms) is shorter than this shared machine takes now and then.
        GlideClient client = GlideClient.createClient(
                GlideClientConfiguration.builder().address(address).requestTimeout(5000).build()).get();
${indent(snippet.slice(0, split), '        ')}
        for (int round = 0; round < Integer.parseInt(argv[1]); round++) {
${indent(snippet.slice(split + 1), '            ')}
${indent(after, '            ')}
        }
        client.close();
        // GLIDE's threads would keep the JVM alive.
        System.exit(0);
    }
}
`;
  },
  bodies: {
    // SCRIPT FLUSH makes the release (and the other process's next acquire) load the script again.
    guard: `if (client.incr("proof:occupancy").get() != 1) throw new IllegalStateException("two holders at once");
String value = client.get("proof:counter").get();
client.set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1)).get();
client.scriptFlush().get();
client.decr("proof:occupancy").get();`,
    renew: `for (int step = 0; step < 10; step++) {
    Thread.sleep(500);
    if (!lockToken.equals(client.get(lockKey).get())) throw new IllegalStateException("lease lost while renewing");
}
if (lockLost.get()) throw new IllegalStateException("renewal reported a loss");
client.incr("proof:renewed").get();`,
    // The pause keeps both processes contending for the lock while their rounds overlap.
    fenced: `Thread.sleep(5);
client.rpush("proof:tokens", new String[] {String.valueOf(fencingToken)}).get();`,
  },
  afterRenew: `client.set(lockKey, lockToken).get();
Thread.sleep(3 * lockTtlMs);
if (client.pttl(lockKey).get() != -1) throw new IllegalStateException("still renewing after release");
client.del(new String[] {lockKey}).get();`,
};
