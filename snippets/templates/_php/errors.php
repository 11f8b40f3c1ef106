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
     * A held lock; $extendLua and $releaseLua are its kind's scripts.
     * @param string $token This holder's owner token: the lock key's value (or its member's name) while it is held.
     * @param ?int $fence The fencing token with a fence key: the guarded resource refuses older ones.
     */
    public function __construct(
        private readonly «var:client» $redis,
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
            } catch («var:error» $error) {
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
«kinds:lease»
}
«kinds:classes»
