<?php
«header»

declare(strict_types=1);

«opt:namespace»
// Redis locks for phpredis (PHP 8.1+): Locksmith::withLock($redis, $key, $ttlMs, function ($lease) {...})
// holds the lock around the callback (reentrant: true lets a nested withLock on the same key
// re-enter it); withReadLock, withWriteLock and withSemaphore hold the other kinds the same way.
// Locksmith::acquire(), acquireRead(), acquireWrite(), acquireSemaphore() and $lease->release()
// are for code that cannot use a callback. PHP has no timer thread: with renew: true the callback
// calls $lease->check() between steps, which extends the lease once a third of the TTL has passed
// and throws LeaseLostException once it is gone.
// Locksmith::tryAcquire() tries once and never waits (null when busy); releaseLock() and
// extendLock() take a key and a token.
//
// A waiter polls with jittered back-off (10 ms doubling to $retryMs, ±50 %): the release's
// wake-up (SPUBLISH) needs SSUBSCRIBE, which phpredis gains only in 6.0, and its subscribe calls
// hold the calling process in a callback loop until a message comes, with no timeout of their own.

/** The lock stayed held for the whole wait. */
final class LockBusyException extends \RuntimeException
{
    public function __construct(public readonly string $key, public readonly int $waitedMs, string $holders = 'another owner')
    {
        parent::__construct("$key is held by $holders; gave up after waiting $waitedMs ms");
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
     * A held lock, read lock, write lock or semaphore permit; $extendLua and $releaseLua are its kind's scripts.
     * @param string $token This holder's owner token: the lock key's value (or its member's name) while it is held.
     * @param ?int $fence The fencing token with a fence key: the guarded resource refuses older ones.
     */
    public function __construct(
        private readonly \Redis|\RedisCluster $redis,
        public readonly string $key,
        public readonly string $token,
        public readonly ?int $fence,
        private readonly int $ttlMs,
        private readonly bool $renew,
        private readonly string $extendLua = Locksmith::EXTEND,
        private readonly string $releaseLua = Locksmith::RELEASE,
    ) {
        $this->renewedAt = hrtime(true);
    }

    /** Sets the lease to $ttlMs from now (default: the acquire's); false when it is no longer held. */
    public function extend(?int $ttlMs = null): bool
    {
        $ttlMs ??= $this->ttlMs;
        Locksmith::checkMs('ttlMs', $ttlMs, true);
        return Locksmith::run($this->redis, $this->extendLua, [$this->key], [$this->token, $ttlMs]) === 1;
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
            } catch (\RedisException $error) {
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

    /** Gives the hold back if this lease still has it, waking waiters; false when it no longer did. */
    public function release(): bool
    {
        if ($this->released) {
            return false;
        }
        $this->released = true;
        return Locksmith::run($this->redis, $this->releaseLua, [$this->key], [$this->token]) !== 0;
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
    public const REENTRANT_ACQUIRE = <<<'LUA'
«lua:reentrant_acquire»
LUA;
    public const REENTRANT_EXTEND = <<<'LUA'
«lua:reentrant_extend»
LUA;
    public const REENTRANT_RELEASE = <<<'LUA'
«lua:reentrant_release»
LUA;
    public const READ_ACQUIRE = <<<'LUA'
«lua:read_acquire»
LUA;
    public const WRITE_ACQUIRE = <<<'LUA'
«lua:write_acquire»
LUA;
    public const RW_EXTEND = <<<'LUA'
«lua:rw_extend»
LUA;
    public const RW_RELEASE = <<<'LUA'
«lua:rw_release»
LUA;
    public const SEMAPHORE_ACQUIRE = <<<'LUA'
«lua:semaphore_acquire»
LUA;
    public const SEMAPHORE_EXTEND = <<<'LUA'
«lua:semaphore_extend»
LUA;
    public const SEMAPHORE_RELEASE = <<<'LUA'
«lua:semaphore_release»
LUA;

    /** @var array<string, string> The owner tokens of the reentrant locks held around the current code, by key. */
    private static array $reentrantHolds = [];

    /**
     * Takes the lock, waiting up to $waitMs with jittered back-off (10 ms doubling to $retryMs, ±50 %),
     * then LockBusyException. $ttlMs: how long the lock outlives a holder that dies without
     * releasing it. $fenceKey: a fencing counter key (in Cluster, with the lock key's {hash tag}).
     * $reentrant: inside withLock(..., reentrant: true) on the same key, takes it again.
     * Redis errors are thrown as RedisException.
     */
    public static function acquire(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
        bool $reentrant = false,
        int $retryMs = 500,
    ): LocksmithLease {
        if ($reentrant) {
            if ($fenceKey !== null) {
                throw new \InvalidArgumentException('$fenceKey works with a plain lock, not a reentrant one');
            }
            $token = self::$reentrantHolds[$key] ?? self::token();
            self::take($redis, $key, $ttlMs, $waitMs, $retryMs, self::REENTRANT_ACQUIRE, [$key], [$token, $ttlMs]);
            return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::REENTRANT_EXTEND, self::REENTRANT_RELEASE);
        }
        $token = self::token();
        $keys = $fenceKey === null ? [$key] : [$key, $fenceKey];
        $reply = self::take($redis, $key, $ttlMs, $waitMs, $retryMs, self::ACQUIRE, $keys, [$token, $ttlMs]);
        return new LocksmithLease($redis, $key, $token, $fenceKey === null ? null : $reply, $ttlMs, $renew);
    }

    /** Takes a read lock: held with other readers, never with a writer. Waits as acquire() does. */
    public static function acquireRead(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        int $waitMs = 10_000,
        bool $renew = false,
        int $retryMs = 500,
    ): LocksmithLease {
        $token = self::token();
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, self::READ_ACQUIRE, [$key], [$token, $ttlMs], 'a writer');
        return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::RW_EXTEND, self::RW_RELEASE);
    }

    /**
     * Takes the write lock: held alone, with no reader. While it waits, its intent keeps new readers
     * out (renewed by every try), so a stream of readers cannot starve it.
     */
    public static function acquireWrite(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        int $waitMs = 10_000,
        bool $renew = false,
        int $retryMs = 500,
    ): LocksmithLease {
        $token = self::token();
        $args = [$token, $ttlMs, $waitMs > 0 ? 2 * max(1, $retryMs) : 1];
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, self::WRITE_ACQUIRE, [$key], $args, 'readers or another writer');
        return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::RW_EXTEND, self::RW_RELEASE);
    }

    /**
     * Takes one of $permits permits of the semaphore $key, each holder with its own lease: a holder
     * that dies gives its permit back when its lease ends. $permits: the same for every caller.
     */
    public static function acquireSemaphore(
        \Redis|\RedisCluster $redis,
        string $key,
        int $permits,
        int $ttlMs,
        int $waitMs = 10_000,
        bool $renew = false,
        int $retryMs = 500,
    ): LocksmithLease {
        if ($permits < 1 || $permits > 999_999_999) {
            throw new \InvalidArgumentException("permits must be from 1 to 999999999, got $permits");
        }
        $token = self::token();
        $args = [$token, $ttlMs, $permits];
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, self::SEMAPHORE_ACQUIRE, [$key], $args, 'the other holders of its permits');
        return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::SEMAPHORE_EXTEND, self::SEMAPHORE_RELEASE);
    }

    /** One try, never waits: the lease, or null while another holder has the lock. */
    public static function tryAcquire(
        \Redis|\RedisCluster $redis,
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
    public static function releaseLock(\Redis|\RedisCluster $redis, string $key, string $token): bool
    {
        return self::run($redis, self::RELEASE, [$key], [$token]) === 1;
    }

    /** Compare-and-extend: sets $key's lease to $ttlMs while it holds $token (true); false when it held another token or none. */
    public static function extendLock(\Redis|\RedisCluster $redis, string $key, string $token, int $ttlMs): bool
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
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        callable $fn,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
        bool $reentrant = false,
        int $retryMs = 500,
    ): mixed {
        $lease = self::acquire($redis, $key, $ttlMs, $waitMs, $fenceKey, $renew, $reentrant, $retryMs);
        if (!$reentrant) {
            return self::hold($lease, $fn);
        }
        $outer = self::$reentrantHolds;
        self::$reentrantHolds[$key] = $lease->token;
        try {
            return self::hold($lease, $fn);
        } finally {
            self::$reentrantHolds = $outer;
        }
    }

    /** Runs $fn($lease) while holding a read lock on $key: other readers may run at the same time, no writer. */
    public static function withReadLock(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        callable $fn,
        int $waitMs = 10_000,
        bool $renew = false,
        int $retryMs = 500,
    ): mixed {
        return self::hold(self::acquireRead($redis, $key, $ttlMs, $waitMs, $renew, $retryMs), $fn);
    }

    /** Runs $fn($lease) while holding the write lock on $key: no reader and no other writer at the same time. */
    public static function withWriteLock(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        callable $fn,
        int $waitMs = 10_000,
        bool $renew = false,
        int $retryMs = 500,
    ): mixed {
        return self::hold(self::acquireWrite($redis, $key, $ttlMs, $waitMs, $renew, $retryMs), $fn);
    }

    /** Runs $fn($lease) while holding one of $permits permits of the semaphore $key. */
    public static function withSemaphore(
        \Redis|\RedisCluster $redis,
        string $key,
        int $permits,
        int $ttlMs,
        callable $fn,
        int $waitMs = 10_000,
        bool $renew = false,
        int $retryMs = 500,
    ): mixed {
        return self::hold(self::acquireSemaphore($redis, $key, $permits, $ttlMs, $waitMs, $renew, $retryMs), $fn);
    }

    /** Runs $fn($lease) and releases the lease, also when $fn throws; LeaseLostException when it was gone by then. */
    private static function hold(LocksmithLease $lease, callable $fn): mixed
    {
        try {
            $result = $fn($lease);
        } catch (\Throwable $error) {
            try {
                $lease->release();
            } catch (\RedisException) {
                // $fn's error is the one to report
            }
            throw $error;
        }
        if (!$lease->release()) {
            throw new LeaseLostException($lease->key, 'it expired or was taken before release');
        }
        return $result;
    }

    /** Runs an acquire script until it takes the lock (its reply) or $waitMs passes (LockBusyException). */
    private static function take(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        int $waitMs,
        int $retryMs,
        string $lua,
        array $keys,
        array $args,
        string $holders = 'another owner',
    ): int {
        self::checkMs('ttlMs', $ttlMs, true);
        self::checkMs('waitMs', $waitMs, false);
        self::checkMs('retryMs', $retryMs, true);
        $deadline = hrtime(true) + $waitMs * 1_000_000;
        for ($attempt = 0; ; $attempt++) {
            $reply = self::run($redis, $lua, $keys, $args);
            if ($reply !== 0) {
                return $reply;
            }
            $leftUs = intdiv($deadline - hrtime(true), 1000);
            if ($leftUs <= 0) {
                throw new LockBusyException($key, $waitMs, $holders);
            }
            usleep(min(min(10 * 2 ** min($attempt, 20), $retryMs) * random_int(500, 1500), $leftUs)); // in µs
        }
    }

    private static function token(): string
    {
        return gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
    }

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

    /** @internal */
    public static function checkMs(string $name, int $value, bool $positive): void
    {
        if ($value < ($positive ? 1 : 0)) {
            $kind = $positive ? 'positive' : 'non-negative';
            throw new \InvalidArgumentException("$name must be a $kind integer of milliseconds, got $value");
        }
    }
}
