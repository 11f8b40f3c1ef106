// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 while the
// body runs, stop renewing on release. PHP has no timer thread, so the body calls $lockRenew()
// between its steps: it extends the lease once ttl/3 has passed since the last renewal (else it
// returns at once), and when the lease is lost it sets $lockLost and throws, so the body stops
// writing. Keep each step well under 2/3 of the TTL. After release $lockRenew() does nothing.
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
$locksmithExtend = <<<'LUA'
«lua:extend»
LUA;
$locksmithRelease = <<<'LUA'
«lua:release»
LUA;
$lockKey = «key»;
$lockTtlMs = «ttl»;
$lockToken = gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
$lockWaitUntil = hrtime(true) + 10_000_000_000; // give up after waiting 10 s (hrtime counts ns)
for ($attempt = 0; $locksmith($locksmithAcquire, [$lockKey], [$lockToken, $lockTtlMs]) === 0; $attempt++) {
    if (hrtime(true) > $lockWaitUntil) {
        throw new \RuntimeException("$lockKey is still held by another owner");
    }
    usleep(min(10 * 2 ** $attempt, 500) * random_int(500, 1500)); // in µs, ±50% jitter
}
$lockLost = false;
$lockReleased = false;
$lockRenewedAt = hrtime(true);
$lockRenew = static function () use (
    $locksmith, $locksmithExtend, $lockKey, $lockToken, $lockTtlMs, &$lockLost, &$lockReleased, &$lockRenewedAt
): void {
    if ($lockReleased) {
        return;
    }
    if (!$lockLost && hrtime(true) - $lockRenewedAt >= $lockTtlMs * 1_000_000 / 3) {
        $renewingAt = hrtime(true);
        $lockLost = true; // until the extend succeeds: after an error the lease may be gone too
        if ($locksmith($locksmithExtend, [$lockKey], [$lockToken, $lockTtlMs]) === 1) {
            $lockLost = false;
            $lockRenewedAt = $renewingAt;
        }
    }
    if ($lockLost) {
        throw new \RuntimeException("lease on $lockKey lost");
    }
};
try {
    «body»
} finally {
    $lockReleased = true;
    $locksmith($locksmithRelease, [$lockKey], [$lockToken]);
}
