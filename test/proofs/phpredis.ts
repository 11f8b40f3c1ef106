import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'phpredis',
  file: 'proof.php',
  // Debian's php-redis extension is loaded by the system PHP, not by a version manager's one.
  command: ['/usr/bin/php'],
  program: (snippet, after) => `<?php
[, $url, $rounds] = $argv;
['host' => $host, 'port' => $port] = parse_url($url);
$redis = new Redis();
$redis->connect($host, $port);
for ($round = 0; $round < (int) $rounds; $round++) {
${indent(snippet, '    ')}
${indent(after, '    ')}
}
`,
  bodies: {
    guard: `if ($redis->incr('proof:occupancy') !== 1) {
    throw new RuntimeException('two holders at once');
}
$value = (int) $redis->get('proof:counter');
$redis->set('proof:counter', $value + 1);
$redis->decr('proof:occupancy');`,
    // The intended use: the body calls $lockRenew() between its steps.
    renew: `for ($step = 0; $step < 10; $step++) {
    usleep(500_000);
    if ($redis->get($lockKey) !== $lockToken) {
        throw new RuntimeException('lease lost while renewing');
    }
    $lockRenew();
}
if ($lockLost) {
    throw new RuntimeException('renewal reported a loss');
}
$redis->incr('proof:renewed');`,
    // A round takes well under a millisecond, less than the two processes' start-up may differ
    // by on a busy machine: holding the lock for a moment, as real work would, makes them contend.
    fenced: `usleep(5000);
$redis->rPush('proof:tokens', (string) $fencingToken);`,
  },
  // A late $lockRenew() (say, from a callback the body kept) must not renew the lease any more.
  afterRenew: `$redis->set($lockKey, $lockToken);
usleep(3 * $lockTtlMs * 1000);
$lockRenew();
if ($redis->pttl($lockKey) !== -1) {
    throw new RuntimeException('still renewing after release');
}
$redis->del($lockKey);`,
};
