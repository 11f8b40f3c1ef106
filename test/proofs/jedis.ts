import { buildJava, javaProgram } from './java-build';
import type { Proof } from './proof';

const IMPORTS = [
  'java.util.List',
  'java.util.UUID',
  'java.util.concurrent.*',
  'java.util.concurrent.atomic.AtomicBoolean',
  'redis.clients.jedis.Jedis',
  'redis.clients.jedis.JedisPool',
  'redis.clients.jedis.exceptions.JedisNoScriptException',
];

export const proof: Proof = {
  client: 'jedis',
  file: 'Proof.java',
  build: buildJava,
  program: javaProgram(IMPORTS, 'JedisPool pool', 'JedisPool client = new JedisPool(java.net.URI.create(argv[0]));'),
  bodies: {
    guard: `try (Jedis jedis = pool.getResource()) {
    if (jedis.incr("proof:occupancy") != 1) throw new IllegalStateException("two holders at once");
    String value = jedis.get("proof:counter");
    jedis.set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1));
    jedis.decr("proof:occupancy");
}`,
    renew: `for (int step = 0; step < 10; step++) {
    Thread.sleep(500);
    try (Jedis jedis = pool.getResource()) {
        if (!lockToken.equals(jedis.get(lockKey))) throw new IllegalStateException("lease lost while renewing");
    }
}
if (lockLost.get()) throw new IllegalStateException("renewal reported a loss");
try (Jedis jedis = pool.getResource()) {
    jedis.incr("proof:renewed");
}`,
    // A round takes well under a millisecond: holding the lock for a moment, as real work would,
    // makes the two processes contend.
    fenced: `Thread.sleep(5);
try (Jedis jedis = pool.getResource()) {
    jedis.rpush("proof:tokens", String.valueOf(fencingToken));
}`,
  },
  afterRenew: `try (Jedis jedis = pool.getResource()) {
    jedis.set(lockKey, lockToken);
    Thread.sleep(3 * lockTtlMs);
    if (jedis.pttl(lockKey) != -1) throw new IllegalStateException("still renewing after release");
    jedis.del(lockKey);
}`,
};
