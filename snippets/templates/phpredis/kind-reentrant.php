«section:scripts»
    public const REENTRANT_ACQUIRE = <<<'LUA'
«lua:reentrant_acquire»
LUA;
    public const REENTRANT_EXTEND = <<<'LUA'
«lua:reentrant_extend»
LUA;
    public const REENTRANT_RELEASE = <<<'LUA'
«lua:reentrant_release»
LUA;
«section:lock-params»
        bool $reentrant = false,
«section:lock-args»
            reentrant: $reentrant,
«section:acquire»
        if ($reentrant) {
            return self::acquireReentrant($redis, $key, $ttlMs, $waitMs, $fenceKey, $renew, $retryMs);
        }
«section:with-lock»
        if ($reentrant) {
            $outer = self::$reentrantHolds;
            self::$reentrantHolds[$key] = $lease->token;
            try {
                return self::hold($lease, $fn);
            } finally {
                self::$reentrantHolds = $outer;
            }
        }
«section:code»

    /** @var array<string, string> The owner tokens of the reentrant locks held around the current code, by key. */
    private static array $reentrantHolds = [];

    /** A reentrant lock (reentrant: true): inside withLock(..., reentrant: true) on the same key, taken again. */
    private static function acquireReentrant(
        \Redis|\RedisCluster $redis,
        string $key,
        int $ttlMs,
        int $waitMs,
        ?string $fenceKey,
        bool $renew,
        int $retryMs,
    ): LocksmithLease {
        if ($fenceKey !== null) {
            throw new \InvalidArgumentException('$fenceKey works with a plain lock, not a reentrant one');
        }
        $token = self::$reentrantHolds[$key] ?? self::token();
        self::take($redis, $key, $ttlMs, $waitMs, $retryMs, fn () => self::run($redis, self::REENTRANT_ACQUIRE, [$key], [$token, $ttlMs]));
        return new LocksmithLease($redis, $key, $token, null, $ttlMs, $renew, self::REENTRANT_EXTEND, self::REENTRANT_RELEASE);
    }
