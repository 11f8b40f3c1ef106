// Valkey GLIDE for Java, smoke test (test/glide-smoke.test.ts). Usage:
//   java Smoke standalone <port>          SET, then GET through a Lua script: prints `ok <value>`
//   java Smoke sharded <port> <channel>   a cluster client subscribed to the sharded channel (its
//                                         configuration: 2.1 has no ssubscribe), prints `subscribed`,
//                                         then `message <payload>`
import static glide.api.models.GlideString.gs;

import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.PubSubMessage;
import glide.api.models.Script;
import glide.api.models.commands.ScriptOptions;
import glide.api.models.configuration.ClusterSubscriptionConfiguration;
import glide.api.models.configuration.ClusterSubscriptionConfiguration.PubSubClusterChannelMode;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import glide.api.models.configuration.NodeAddress;

public final class Smoke {
    public static void main(String[] argv) throws Exception {
        NodeAddress address = NodeAddress.builder().host("127.0.0.1").port(Integer.parseInt(argv[1])).build();
        if (argv[0].equals("standalone")) {
            try (GlideClient client =
                    GlideClient.createClient(GlideClientConfiguration.builder().address(address).build()).get();
                    Script script = new Script("return redis.call('GET', KEYS[1])", false)) {
                client.set("glide:smoke", "ok").get();
                Object value = client.invokeScript(script, ScriptOptions.builder().key("glide:smoke").build()).get();
                System.out.println("ok " + value);
            }
        } else {
            ClusterSubscriptionConfiguration subscriptions = ClusterSubscriptionConfiguration.builder()
                    .subscription(PubSubClusterChannelMode.SHARDED, gs(argv[2]))
                    .build();
            GlideClusterClientConfiguration configuration = GlideClusterClientConfiguration.builder()
                    .address(address)
                    .subscriptionConfiguration(subscriptions)
                    .build();
            try (GlideClusterClient client = GlideClusterClient.createClient(configuration).get()) {
                System.out.println("subscribed");
                PubSubMessage message = client.getPubSubMessage().get();
                System.out.println("message " + message.getMessage());
            }
        }
        System.exit(0);
    }
}
