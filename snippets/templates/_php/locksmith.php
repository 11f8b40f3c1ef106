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
«kinds:scripts»

    /**
     * Takes the lock, waiting up to $waitMs with jittered back-off (10 ms doubling to $retryMs, jittered down to half)
     * never past the holder's lease (PTTL), then LockBusyException. $ttlMs: how long the lock outlives a holder that
     * dies without releasing it. $fenceKey: a fencing counter key (in Cluster, with the lock key's {hash tag}).
     * Redis errors are thrown as the client throws them.
     */
    public static function acquire(
        «var:client» $redis,
        string $key,
        int $ttlMs,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
        int $retryMs = 500,
«kinds:lock-params»
    ): LocksmithLease {
«kinds:options»
«kinds:acquire»
        $token = self::token();
        $keys = $fenceKey === null ? [$key] : [$key, $fenceKey];
        $attempt = fn () => self::run($redis, self::ACQUIRE, $keys, [$token, $ttlMs]);
«kinds:attempt»
        $reply = self::take($redis, $key, $ttlMs, $waitMs, $retryMs, $attempt);
        return new LocksmithLease($redis, $key, $token, $fenceKey === null ? null : $reply, $ttlMs, $renew);
    }

    /** One try, never waits: the lease, or null while another holder has the lock. */
    public static function tryAcquire(
        «var:client» $redis,
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
    public static function releaseLock(«var:client» $redis, string $key, string $token): bool
    {
        return self::run($redis, self::RELEASE, [$key], [$token]) === 1;
    }

    /** Compare-and-extend: sets $key's lease to $ttlMs while it holds $token (true); false when it held another token or none. */
    public static function extendLock(«var:client» $redis, string $key, string $token, int $ttlMs): bool
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
        «var:client» $redis,
        string $key,
        int $ttlMs,
        callable $fn,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
        int $retryMs = 500,
«kinds:lock-params»
    ): mixed {
        $lease = self::acquire(
            $redis,
            $key,
            $ttlMs,
            $waitMs,
            $fenceKey,
            $renew,
            $retryMs,
«kinds:lock-args»
        );
«kinds:with-lock»
        return self::hold($lease, $fn);
    }
«kinds:code»

    /** Runs $fn($lease) and releases the lease, also when $fn throws; LeaseLostException when it was gone by then. */
    private static function hold(LocksmithLease $lease, callable $fn): mixed
    {
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
            throw new LeaseLostException($lease->key, 'it expired or was taken before release');
        }
        return $result;
    }

    /**
     * Runs $attempt (an acquire script's call) until it takes the lock (its reply) or $waitMs passes (LockBusyException),
     * never sleeping past the lock's lease (PTTL after a busy try): a dead holder's lock is taken as it ends.
     */
    private static function take(«var:client» $redis, string $key, int $ttlMs, int $waitMs, int $retryMs, callable $attempt, string $holders = 'another owner'): int
    {
        self::checkMs('ttlMs', $ttlMs, true);
        self::checkMs('waitMs', $waitMs, false);
        self::checkMs('retryMs', $retryMs, true);
        $deadline = hrtime(true) + $waitMs * 1_000_000;
        for ($tries = 0; ; $tries++) {
            $reply = $attempt();
            if ($reply !== 0) {
                return $reply;
            }
            $leftUs = intdiv($deadline - hrtime(true), 1000);
            if ($leftUs <= 0) {
                throw new LockBusyException($key, $waitMs, $holders);
            }
            $pttl = (int) $redis->pttl($key); // -2: the lock is free, try at once; -1: no lease, the back-off alone
            $leaseUs = $pttl === -1 ? $leftUs : max(0, ($pttl + 1) * 1000);
            usleep(min(min(10 * 2 ** min($tries, 20), $retryMs) * random_int(500, 1000), $leaseUs, $leftUs)); // in µs
        }
    }

    private static function token(): string
    {
        return gethostname() . ':' . getmypid() . ':' . bin2hex(random_bytes(8));
    }

    /** @internal */
    public static function checkMs(string $name, int $value, bool $positive): void
    {
        if ($value < ($positive ? 1 : 0)) {
            $kind = $positive ? 'positive' : 'non-negative';
            throw new \InvalidArgumentException("$name must be a $kind integer of milliseconds, got $value");
        }
    }
