<?php
«header»

declare(strict_types=1);

«opt:namespace»
// Redis locks for Predis (PHP 8.1+): Locksmith::withLock($client, $key, $ttlMs, function ($lease) {...})
// holds the lock around the callback; Locksmith::acquire() and $lease->release() are for code
// that cannot use one. PHP has no timer thread: with renew: true the callback calls
// $lease->check() between steps, which extends the lease once a third of the TTL has passed and
// throws LeaseLostException once it is gone.
// Locksmith::tryAcquire() tries once and never waits (null when busy); releaseLock() and
// extendLock() take a key and a token.
//
// A waiter polls with jittered back-off: the release's wake-up (SPUBLISH) needs SSUBSCRIBE, which
// Predis 1.x has no consumer for, and its pub/sub loop holds the process until a message comes.

/** The lock stayed held by another owner for the whole wait. */
final class LockBusyException extends \RuntimeException
{
    public function __construct(public readonly string $key, public readonly int $waitedMs)
    {
        parent::__construct("$key is held by another owner; gave up after waiting $waitedMs ms");
    }
}

/** The lease ended while the holder still relied on it: taken by another owner, expired, or not renewable. */
final class LeaseLostException extends \RuntimeException
{
    public function __construct(public readonly string $key, string $why, ?\Throwable $previous = null)
    {
        parent::__construct("lease on $key lost: $why", 0, $previous);
    }
}

final class LocksmithLease
{
    private bool $released = false;
    private ?LeaseLostException $lostReason = null;
    private int $renewedAt;

    /**
     * @param string $token This holder's owner token: the lock key's value while it is held.
     * @param ?int $fence The fencing token with a fence key: the guarded resource refuses older ones.
     */
    public function __construct(
        private readonly \Predis\ClientInterface $redis,
        public readonly string $key,
        public readonly string $token,
        public readonly ?int $fence,
        private readonly int $ttlMs,
        private readonly bool $renew,
    ) {
        $this->renewedAt = hrtime(true);
    }

    /** Sets the lease to $ttlMs from now (default: the acquire's); false when it is no longer held. */
    public function extend(?int $ttlMs = null): bool
    {
        $ttlMs ??= $this->ttlMs;
        Locksmith::checkMs('ttlMs', $ttlMs, true);
        return Locksmith::run($this->redis, Locksmith::EXTEND, [$this->key], [$this->token, $ttlMs]) === 1;
    }

    /**
     * Call between steps: with renew, extends the lease once a third of the TTL has passed since the
     * last renewal (else returns at once); throws LeaseLostException once the lease is gone.
     */
    public function check(): void
    {
        if ($this->renew && !$this->released && $this->lostReason === null
            && hrtime(true) - $this->renewedAt >= intdiv($this->ttlMs, 3) * 1_000_000) {
            $renewingAt = hrtime(true);
            try {
                if ($this->extend()) {
                    $this->renewedAt = $renewingAt;
                } else {
                    $this->lostReason = new LeaseLostException($this->key, 'taken by another owner or expired');
                }
            } catch (\Predis\PredisException $error) {
                $this->lostReason = new LeaseLostException($this->key, 'renewal failed, it may expire unseen', $error);
            }
        }
        if ($this->lostReason !== null) {
            throw $this->lostReason;
        }
    }

    /** True once check() found the lease gone: stop writing. */
    public function lost(): bool
    {
        return $this->lostReason !== null;
    }

    /** Deletes the lock if this lease still holds it; false when it no longer did. */
    public function release(): bool
    {
        if ($this->released) {
            return false;
        }
        $this->released = true;
        return Locksmith::run($this->redis, Locksmith::RELEASE, [$this->key], [$this->token]) === 1;
    }
}

final class Locksmith
{
    public const ACQUIRE = <<<'LUA'
«lua:acquire»
LUA;
    public const EXTEND = <<<'LUA'
«lua:extend»
LUA;
    public const RELEASE = <<<'LUA'
«lua:release»
LUA;

    /**
     * Takes the lock, waiting up to $waitMs with jittered back-off (10 ms doubling to 500 ms, ±50 %),
     * then LockBusyException. $ttlMs: how long the lock outlives a holder that dies without
     * releasing it. $fenceKey: a fencing counter key (in Cluster, with the lock key's {hash tag}).
     * Redis errors are thrown as Predis throws them.
     */
    public static function acquire(
        \Predis\ClientInterface $redis,
        string $key,
        int $ttlMs,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
    ): LocksmithLease {
        self::checkMs('ttlMs', $ttlMs, true);
        self::checkMs('waitMs', $waitMs, false);
        $token = gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
        $keys = $fenceKey === null ? [$key] : [$key, $fenceKey];
        $deadline = hrtime(true) + $waitMs * 1_000_000;
        for ($attempt = 0; ; $attempt++) {
            $reply = self::run($redis, self::ACQUIRE, $keys, [$token, $ttlMs]);
            if ($reply !== 0) {
                return new LocksmithLease($redis, $key, $token, $fenceKey === null ? null : $reply, $ttlMs, $renew);
            }
            $leftUs = intdiv($deadline - hrtime(true), 1000);
            if ($leftUs <= 0) {
                throw new LockBusyException($key, $waitMs);
            }
            usleep(min(min(10 * 2 ** $attempt, 500) * random_int(500, 1500), $leftUs)); // in µs
        }
    }

    /** One try, never waits: the lease, or null while another holder has the lock. */
    public static function tryAcquire(
        \Predis\ClientInterface $redis,
        string $key,
        int $ttlMs,
        ?string $fenceKey = null,
        bool $renew = false,
    ): ?LocksmithLease {
        try {
            return self::acquire($redis, $key, $ttlMs, 0, $fenceKey, $renew);
        } catch (LockBusyException) {
            return null;
        }
    }

    /** Compare-and-delete: deletes $key while it holds $token (true, and wakes a waiter); false when it held another token or none. */
    public static function releaseLock(\Predis\ClientInterface $redis, string $key, string $token): bool
    {
        return self::run($redis, self::RELEASE, [$key], [$token]) === 1;
    }

    /** Compare-and-extend: sets $key's lease to $ttlMs while it holds $token (true); false when it held another token or none. */
    public static function extendLock(\Predis\ClientInterface $redis, string $key, string $token, int $ttlMs): bool
    {
        self::checkMs('ttlMs', $ttlMs, true);
        return self::run($redis, self::EXTEND, [$key], [$token, $ttlMs]) === 1;
    }

    /**
     * Runs $fn($lease) while holding the lock and releases it afterwards, also when $fn throws.
     * Throws LeaseLostException after $fn returns if the lease was gone before the release: another
     * holder may have run at the same time, so $fn's effects need checking (or fencing).
     */
    public static function withLock(
        \Predis\ClientInterface $redis,
        string $key,
        int $ttlMs,
        callable $fn,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
    ): mixed {
        $lease = self::acquire($redis, $key, $ttlMs, $waitMs, $fenceKey, $renew);
        try {
            $result = $fn($lease);
        } catch (\Throwable $error) {
            try {
                $lease->release();
            } catch (\Predis\PredisException) {
                // $fn's error is the one to report
            }
            throw $error;
        }
        if (!$lease->release()) {
            throw new LeaseLostException($key, 'it expired or was taken before release');
        }
        return $result;
    }

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

    /** @internal */
    public static function checkMs(string $name, int $value, bool $positive): void
    {
        if ($value < ($positive ? 1 : 0)) {
            $kind = $positive ? 'positive' : 'non-negative';
            throw new \InvalidArgumentException("$name must be a $kind integer of milliseconds, got $value");
        }
    }
}
