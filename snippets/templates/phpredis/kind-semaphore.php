«section:scripts»
    public const SEMAPHORE_ACQUIRE = <<<'LUA'
«lua:semaphore_acquire»
LUA;
    public const SEMAPHORE_EXTEND = <<<'LUA'
«lua:semaphore_extend»
LUA;
    public const SEMAPHORE_RELEASE = <<<'LUA'
«lua:semaphore_release»
LUA;
«section:code»

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
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, fn () => self::run($redis, self::SEMAPHORE_ACQUIRE, [$key], $args), 'the other holders of its permits');
        return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::SEMAPHORE_EXTEND, self::SEMAPHORE_RELEASE);
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
