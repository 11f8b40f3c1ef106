«section:scripts»
    public const MULTI_ACQUIRE = <<<'LUA'
«lua:multi_acquire»
LUA;
    public const MULTI_EXTEND = <<<'LUA'
«lua:multi_extend»
LUA;
    public const MULTI_RELEASE = <<<'LUA'
«lua:multi_release»
LUA;
«section:classes»

/**
 * Several plain locks held together under one token ($keys: each lock key once, in the order taken).
 * extend() and release() act on every key the token still holds; both answer true only when it held all of them.
 */
final class LocksmithMultiLease
{
    private bool $released = false;

    /** @param list<string> $keys */
    public function __construct(
        private readonly «var:client» $redis,
        public readonly array $keys,
        public readonly string $token,
        private readonly int $ttlMs,
    ) {
    }

    /** Sets every lock's lease to $ttlMs from now (default: the acquire's); false when the token no longer held all of them. */
    public function extend(?int $ttlMs = null): bool
    {
        $ttlMs ??= $this->ttlMs;
        Locksmith::checkMs('ttlMs', $ttlMs, true);
        return Locksmith::run($this->redis, Locksmith::MULTI_EXTEND, $this->keys, [$this->token, $ttlMs]) === count($this->keys);
    }

    /** Gives back every lock the token still holds, waking their waiters; false when it no longer held all of them. */
    public function release(): bool
    {
        if ($this->released) {
            return false;
        }
        $this->released = true;
        return Locksmith::run($this->redis, Locksmith::MULTI_RELEASE, $this->keys, [$this->token]) === count($this->keys);
    }
}
«section:code»

    /**
     * Takes every lock in $keys, all or none (the "move money between two accounts" lock), in one
     * multi_acquire call, waiting up to $waitMs, then LockBusyException naming a busy key. No caller
     * waits holding part of its keys, so overlapping key sets cannot deadlock. A waiter polls with
     * jittered back-off (as acquire()), never past the busy key's lease. On a cluster client the keys
     * are refused (no slot-by-slot taking here): use a connection to one server.
     * @param list<string> $keys each lock key once
     */
    public static function acquireMulti(«var:client» $redis, array $keys, int $ttlMs, int $waitMs = 10_000, int $retryMs = 500): LocksmithMultiLease
    {
        $keys = self::multiKeys($redis, $keys);
        self::checkMs('ttlMs', $ttlMs, true);
        self::checkMs('waitMs', $waitMs, false);
        self::checkMs('retryMs', $retryMs, true);
        $token = self::token();
        $deadline = hrtime(true) + $waitMs * 1_000_000;
        for ($tries = 0; ; $tries++) {
            [$taken, $at, $pttl] = array_map('intval', self::runForList($redis, self::MULTI_ACQUIRE, $keys, [$token, $ttlMs]));
            if ($taken === 1) {
                return new LocksmithMultiLease($redis, $keys, $token, $ttlMs);
            }
            $leftUs = intdiv($deadline - hrtime(true), 1000);
            if ($leftUs <= 0) {
                throw new LockBusyException($keys[$at - 1] ?? $keys[0], $waitMs);
            }
            $leaseUs = $pttl === -1 ? $leftUs : max(0, ($pttl + 1) * 1000); // -1: no lease, the back-off alone
            usleep(min(min(10 * 2 ** min($tries, 20), $retryMs) * random_int(500, 1000), $leaseUs, $leftUs)); // in µs
        }
    }

    /**
     * Runs $fn($lease) while holding every lock in $keys (see acquireMulti) and releases them
     * afterwards, also when $fn throws; LeaseLostException after $fn returns if the token no longer held all of them.
     * @param list<string> $keys each lock key once
     */
    public static function withMultiLock(«var:client» $redis, array $keys, int $ttlMs, callable $fn, int $waitMs = 10_000, int $retryMs = 500): mixed
    {
        $lease = self::acquireMulti($redis, $keys, $ttlMs, $waitMs, $retryMs);
        try {
            $result = $fn($lease);
        } catch (\Throwable $error) {
            try {
                $lease->release();
            } catch («var:error») {
                // $fn's error is the one to report
            }
            throw $error;
        }
        if (!$lease->release()) {
            throw new LeaseLostException(implode(', ', $lease->keys), 'one expired or was taken before release');
        }
        return $result;
    }

    /** $keys in the one order every caller takes them in (by bytes); bad input refused before anything is sent. */
    private static function multiKeys(«var:client» $redis, array $keys): array
    {
        if ($keys === [] || !array_is_list($keys)) {
            throw new \InvalidArgumentException('keys must be a non-empty list of lock keys');
        }
        foreach ($keys as $key) {
            if (!is_string($key) || $key === '') {
                throw new \InvalidArgumentException('keys must be non-empty strings, got ' . var_export($key, true));
            }
        }
        $repeated = array_keys(array_filter(array_count_values($keys), fn (int $count) => $count > 1));
        if ($repeated !== []) {
            throw new \InvalidArgumentException("keys names $repeated[0] more than once: give each lock key once");
        }
        if (self::isCluster($redis)) {
            throw new \InvalidArgumentException('acquireMulti takes every key in one call on one server: a cluster client is not supported, connect to one server');
        }
        sort($keys, SORT_STRING);
        return $keys;
    }
