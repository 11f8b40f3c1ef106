import { buildJava, javaProgram } from './java-build';
import type { Proof } from './proof';

const IMPORTS = [
  'java.util.List',
  'java.util.UUID',
  'java.util.concurrent.*',
  'java.util.concurrent.atomic.AtomicBoolean',
  'org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory',
  'org.springframework.data.redis.core.StringRedisTemplate',
  'org.springframework.data.redis.core.script.RedisScript',
];

/** A StringRedisTemplate over a LettuceConnectionFactory, as Spring Boot configures one (without its context). */
const TEMPLATE = `LettuceConnectionFactory factory = new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(argv[0]));
        factory.afterPropertiesSet();
        factory.start();
        StringRedisTemplate client = new StringRedisTemplate(factory);`;

export const proof: Proof = {
  client: 'spring-data-redis',
  file: 'Proof.java',
  build: buildJava,
  program: javaProgram(IMPORTS, 'StringRedisTemplate redisTemplate', TEMPLATE),
  bodies: {
    guard: `if (redisTemplate.opsForValue().increment("proof:occupancy") != 1) throw new IllegalStateException("two holders at once");
String value = redisTemplate.opsForValue().get("proof:counter");
redisTemplate.opsForValue().set("proof:counter", String.valueOf(value == null ? 1 : Long.parseLong(value) + 1));
redisTemplate.opsForValue().decrement("proof:occupancy");`,
    renew: `for (int step = 0; step < 10; step++) {
    Thread.sleep(500);
    if (!lockToken.equals(redisTemplate.opsForValue().get(lockKey))) throw new IllegalStateException("lease lost while renewing");
}
if (lockLost.get()) throw new IllegalStateException("renewal reported a loss");
redisTemplate.opsForValue().increment("proof:renewed");`,
    fenced: `Thread.sleep(5);
redisTemplate.opsForList().rightPush("proof:tokens", String.valueOf(fencingToken));`,
  },
  afterRenew: `redisTemplate.opsForValue().set(lockKey, lockToken);
Thread.sleep(3 * lockTtlMs);
if (redisTemplate.getExpire(lockKey) != -1) throw new IllegalStateException("still renewing after release");
redisTemplate.delete(lockKey);`,
};
