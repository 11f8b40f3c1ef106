<?php
«header»

declare(strict_types=1);

«opt:namespace»
«set:client»\Predis\ClientInterface
«set:error»\Predis\PredisException
// Redis locks for Predis (PHP 8.1+): Locksmith::withLock($client, $key, $ttlMs, function ($lease) {...})
// holds the lock around the callback; Locksmith::acquire() and $lease->release() are for code that
// cannot use one; Locksmith::tryAcquire() tries once and never waits (null when busy);
// releaseLock() and extendLock() take a key and a token. PHP has no timer thread: with renew: true
// the callback calls $lease->check() between steps, which extends the lease once a third of the TTL
// has passed and throws LeaseLostException once it is gone.
//
// A waiter polls with jittered back-off (10 ms doubling to $retryMs, ±50 %): the release's wake-up
// (SPUBLISH) needs SSUBSCRIBE, which Predis 1.x has no consumer for, and its pub/sub loop holds the
// process until a message comes.

«include:_php/errors»

«include:_php/locksmith»

    /**
     * Runs a script by its SHA1: Predis sends a ScriptCommand as EVALSHA and, when Redis answers
     * NOSCRIPT (script cache flushed, restart, failover), resends it as EVAL, which caches it again.
     */
    public static function run(\Predis\ClientInterface $redis, string $lua, array $keys, array $args): int
    {
        $script = new class ($lua, count($keys)) extends \Predis\Command\ScriptCommand {
            public function __construct(private string $lua, private int $keyCount)
            {
            }

            public function getScript(): string
            {
                return $this->lua;
            }

            protected function getKeysCount(): int
            {
                return $this->keyCount;
            }
        };
        $script->setArguments([...$keys, ...$args]);
        return (int) $redis->executeCommand($script);
    }
}
