<?php
«header»

declare(strict_types=1);

«opt:namespace»
«set:client»\Redis|\RedisCluster
«set:error»\RedisException
// Redis locks for phpredis (PHP 8.1+): Locksmith::withLock($redis, $key, $ttlMs, function ($lease) {...})
// holds the lock around the callback; Locksmith::acquire() and $lease->release() are for code that
// cannot use one; Locksmith::tryAcquire() tries once and never waits (null when busy);
// releaseLock() and extendLock() take a key and a token. PHP has no timer thread: with renew: true
// the callback calls $lease->check() between steps, which extends the lease once a third of the TTL
// has passed and throws LeaseLostException once it is gone.
//
// A waiter polls with jittered back-off (10 ms doubling to $retryMs, jittered down to half), never past the
// holder's lease (PTTL after a busy try). No wake-up: SSUBSCRIBE comes in phpredis 6.0, and its subscribe
// calls hold the calling process in a callback loop until a message comes, with no timeout of their own.

«include:_php/errors»

«include:_php/locksmith»

    /**
     * Runs a script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart, failover)
     * sends the source once with EVAL, which caches it again. phpredis reports an error reply as
     * false with the message in getLastError(): any other error is thrown.
     */
    public static function run(\Redis|\RedisCluster $redis, string $lua, array $keys, array $args): int
    {
        $redis->clearLastError();
        $reply = $redis->evalSha(sha1($lua), [...$keys, ...$args], count($keys));
        if ($reply === false && str_starts_with((string) $redis->getLastError(), 'NOSCRIPT')) {
            $redis->clearLastError();
            $reply = $redis->eval($lua, [...$keys, ...$args], count($keys));
        }
        if ($reply === false) {
            $error = $redis->getLastError() ?? 'lock script failed';
            $redis->clearLastError();
            throw new \RedisException($error);
        }
        return (int) $reply;
    }
}
