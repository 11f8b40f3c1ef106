«section:scripts»
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
«section:code»

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
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, fn () => self::run($redis, self::READ_ACQUIRE, [$key], [$token, $ttlMs]), 'a writer');
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
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, fn () => self::run($redis, self::WRITE_ACQUIRE, [$key], $args), 'readers or another writer');
        return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::RW_EXTEND, self::RW_RELEASE);
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
