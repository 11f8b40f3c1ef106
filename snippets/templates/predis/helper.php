<?php
«header»

declare(strict_types=1);

«opt:namespace»
«set:client»\Predis\ClientInterface
«set:error»\Predis\PredisException
// Redis locks for Predis (PHP 8.1+): Locksmith::withLock($client, $key, $ttlMs, fn ($lease) => ...) holds
// a lock around the callback; acquire() and $lease->release() are for code that cannot use one;
// tryAcquire() tries once and never waits (null when busy); releaseLock() and extendLock() take a key
// and a token. With renew: true the callback calls $lease->check() between steps (PHP has no timer
// thread). Waiters poll with jittered back-off, never past the holder's lease (PTTL after a busy try):
// Predis 1.x has no consumer for SSUBSCRIBE's wake-ups.

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
