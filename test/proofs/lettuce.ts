import { buildJava, javaProgram } from './java-build';
import type { Proof } from './proof';

const IMPORTS = [
  'java.util.List',
  'java.util.UUID',
  'java.util.concurrent.*',
  'java.util.concurrent.atomic.AtomicBoolean',
  'io.lettuce.core.RedisClient',
  'io.lettuce.core.RedisNoScriptException',
  'io.lettuce.core.ScriptOutputType',
  'io.lettuce.core.api.sync.RedisCommands',
];

export const proof: Proof = {
  client: 'lettuce',
  file: 'Proof.java',
  build: buildJava,
  program: javaProgram(
    IMPORTS,
    'RedisCommands<String, String> redis',
    'RedisCommands<String, String> client = RedisClient.create(argv[0]).connect().sync();',
  ),
  bodies: {
    guard: `if (redis.incr("proof:occupancy") != 1) throw new IllegalStateException("two holders at once");
String value = redis.get("proof:counter");
redis.set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1));
redis.decr("proof:occupancy");`,
    renew: `for (int step = 0; step < 10; step++) {
    Thread.sleep(500);
    if (!lockToken.equals(redis.get(lockKey))) throw new IllegalStateException("lease lost while renewing");
}
if (lockLost.get()) throw new IllegalStateException("renewal reported a loss");
redis.incr("proof:renewed");`,
    fenced: `Thread.sleep(5);
redis.rpush("proof:tokens", String.valueOf(fencingToken));`,
  },
  afterRenew: `redis.set(lockKey, lockToken);
Thread.sleep(3 * lockTtlMs);
if (redis.pttl(lockKey) != -1) throw new IllegalStateException("still renewing after release");
redis.del(lockKey);`,
};
