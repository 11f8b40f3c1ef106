// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Assumes a phpredis client in $redis, PHP 8+; $locksmith runs EVALSHA, EVAL on NOSCRIPT.
$locksmith = static function (string $lua, array $keys, array $args) use ($redis) {
    $redis->clearLastError();
    $reply = $redis->evalSha(sha1($lua), [...$keys, ...$args], count($keys));
    if ($reply === false && str_starts_with((string) $redis->getLastError(), 'NOSCRIPT')) {
        $redis->clearLastError();
        $reply = $redis->eval($lua, [...$keys, ...$args], count($keys));
    }
    if ($reply === false) {
        $error = $redis->getLastError();
        $redis->clearLastError();
        throw new \RedisException($error ?? 'lock script failed');
    }
    return $reply;
};
$locksmithAcquire = <<<'LUA'
«lua:acquire»
LUA;
$locksmithRelease = <<<'LUA'
«lua:release»
LUA;
$lockKey = «key»;
$fenceKey = «fence»;
$lockTtlMs = «ttl»;
$lockToken = gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
$lockWaitUntil = hrtime(true) + 10_000_000_000; // give up after waiting 10 s (hrtime counts ns)
for ($attempt = 0; ($fencingToken = $locksmith($locksmithAcquire, [$lockKey, $fenceKey], [$lockToken, $lockTtlMs])) === 0; $attempt++) {
    if (hrtime(true) > $lockWaitUntil) {
        throw new \RuntimeException("$lockKey is still held by another owner");
    }
    usleep(min(10 * 2 ** $attempt, 500) * random_int(500, 1500)); // in µs, ±50% jitter
}
try {
    «body»
} finally {
    $locksmith($locksmithRelease, [$lockKey], [$lockToken]);
}
