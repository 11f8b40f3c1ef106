«section:classes»

/** waitForReplicas with its defaults filled in, its values checked before anything is sent. */
final class ReplicaWait
{
    private const DEFAULTS = ['replicas' => 1, 'timeoutMs' => 100, 'fsync' => false, 'onShortfall' => 'release'];

    /** @param 'release'|callable(ReplicaShortfall): void $onShortfall */
    private function __construct(
        public readonly int $replicas,
        public readonly int $timeoutMs,
        public readonly bool $fsync,
        public readonly mixed $onShortfall,
    ) {
    }

    /** ['replicas' => 1, 'timeoutMs' => 100, 'fsync' => false, 'onShortfall' => 'release'], checked against the lease. */
    public static function of(array $option, int $ttlMs): self
    {
        Locksmith::checkMs('ttlMs', $ttlMs, true);
        $unknown = array_diff(array_keys($option), array_keys(self::DEFAULTS));
        if ($unknown) {
            $names = implode(', ', array_keys(self::DEFAULTS));
            throw new \InvalidArgumentException('waitForReplicas has no ' . implode(', ', $unknown) . "; it takes $names");
        }
        ['replicas' => $replicas, 'timeoutMs' => $timeoutMs, 'fsync' => $fsync, 'onShortfall' => $onShortfall] = $option + self::DEFAULTS;
        $got = static fn (mixed $value): string => 'got ' . var_export($value, true);
        $problem = match (true) {
            !is_int($replicas) || $replicas < 1 => 'replicas must be a positive integer, ' . $got($replicas),
            !is_int($timeoutMs) || $timeoutMs < 1 => 'timeoutMs must be a positive integer of milliseconds, ' . $got($timeoutMs),
            $timeoutMs >= $ttlMs => "timeoutMs ($timeoutMs) must be shorter than the lease ($ttlMs ms): the wait spends it",
            !is_bool($fsync) => 'fsync must be true or false, ' . $got($fsync),
            $onShortfall !== 'release' && !is_callable($onShortfall) => "onShortfall must be 'release' or a callable, " . $got($onShortfall),
            default => null,
        };
        if ($problem !== null) {
            throw new \InvalidArgumentException("waitForReplicas.$problem");
        }
        return new self($replicas, $timeoutMs, $fsync, $onShortfall);
    }

    /** The command that follows the acquire in its pipeline. */
    public function command(): array
    {
        return $this->fsync ? ['WAITAOF', 1, $this->replicas, $this->timeoutMs] : ['WAIT', $this->replicas, $this->timeoutMs];
    }

    /**
     * The shortfall the wait's reply means, null when the replicas acknowledged. $error: 'connection-lost',
     * or the server's error reply, thrown unless it is WAITAOF's missing command or disabled AOF.
     */
    public function shortfall(string $lock, mixed $reply, string|\Throwable|null $error): ?ReplicaShortfall
    {
        $of = fn (string $reason, ?int $acknowledged = null, ?bool $local = null) =>
            new ReplicaShortfall($lock, $reason, $this->replicas, $this->timeoutMs, $acknowledged, $local);
        if ($error !== null) {
            return match (true) {
                $error === 'connection-lost' => $of('connection-lost'),
                (bool) preg_match('/^ERR unknown command/i', $error->getMessage()) => $of('no-waitaof'),
                stripos($error->getMessage(), 'appendonly is disabled') !== false => $of('aof-off'),
                default => throw $error,
            };
        }
        if ($this->fsync) {
            [$local, $acknowledged] = is_array($reply) && count($reply) === 2 ? $reply : [null, null];
            if (!is_int($local) || !is_int($acknowledged)) {
                throw new \UnexpectedValueException('WAITAOF replied ' . json_encode($reply) . ', not [numlocal, numreplicas]');
            }
            return $local >= 1 && $acknowledged >= $this->replicas ? null : $of('timeout', $acknowledged, $local >= 1);
        }
        if (!is_int($reply)) {
            throw new \UnexpectedValueException('WAIT replied ' . json_encode($reply) . ', not a count of replicas');
        }
        return $reply >= $this->replicas ? null : $of('timeout', $reply);
    }
}

/** Why replicas did not acknowledge an acquire: ReplicaShortfallException's $shortfall, onShortfall's argument. */
final class ReplicaShortfall
{
    /**
     * @param string $reason 'timeout', 'connection-lost', 'no-waitaof' (fsync on a server without WAITAOF) or 'aof-off'
     * @param ?int $acknowledged What WAIT answered (WAITAOF: its second element); null when the wait gave no count.
     * @param ?bool $fsyncedLocally With fsync: whether the master's AOF has the acquire.
     */
    public function __construct(
        public readonly string $lock,
        public readonly string $reason,
        public readonly int $required,
        public readonly int $timeoutMs,
        public readonly ?int $acknowledged = null,
        public readonly ?bool $fsyncedLocally = null,
    ) {
    }

    /** A setting the server cannot honour: released whatever onShortfall says. */
    public function misconfigured(): bool
    {
        return $this->reason === 'no-waitaof' || $this->reason === 'aof-off';
    }

    public function describe(): string
    {
        $of = "$this->required replica" . ($this->required === 1 ? '' : 's');
        $acknowledged = $this->acknowledged ?? 0;
        return match ($this->reason) {
            'timeout' => $this->fsyncedLocally === null
                ? "$this->lock was acknowledged by $acknowledged of $of within $this->timeoutMs ms (WAIT)"
                : "$this->lock was fsynced by $acknowledged of $of" . ($this->fsyncedLocally ? '' : ' and not by the master')
                    . " within $this->timeoutMs ms (WAITAOF)",
            'connection-lost' => "$this->lock: the connection closed before the replicas acknowledged the acquire (it may not have reached any)",
            'no-waitaof' => "$this->lock: waitForReplicas.fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)",
            'aof-off' => "$this->lock: waitForReplicas.fsync needs appendonly yes on the master, which has it off",
        };
    }
}

/** Replicas did not acknowledge the acquire in time: not held. */
final class ReplicaShortfallException extends \RuntimeException
{
    /** @param bool $released False when the compare-and-delete could not run: the lock then ends with its lease. */
    public function __construct(public readonly ReplicaShortfall $shortfall, public readonly bool $released)
    {
        $fix = match ($shortfall->reason) {
            'timeout' => 'Check the replicas (INFO replication: connected_slaves, their lag), or pass onShortfall to keep such locks',
            'connection-lost' => 'The master may be failing over: try again once the client has reconnected',
            default => 'Turn fsync off (WAIT alone covers a failover) or enable the AOF',
        };
        $outcome = $released ? 'released' : 'could not be released (it ends with its lease)';
        parent::__construct("{$shortfall->describe()}: $outcome, not held. $fix");
    }
}
«section:lock-params»
        ?array $waitForReplicas = null,
«section:lock-args»
            waitForReplicas: $waitForReplicas,
«section:options»
        if ($waitForReplicas !== null && !empty($reentrant)) { // $reentrant: when the helper has the reentrant lock
            throw new \InvalidArgumentException('waitForReplicas works with a plain lock, not a reentrant one');
        }
        $wait = $waitForReplicas === null ? null : ReplicaWait::of($waitForReplicas, $ttlMs);
«section:attempt»
        if ($wait !== null) {
            $attempt = fn () => self::acquireAndWait($redis, $wait, $key, $token, $keys, [$token, $ttlMs]);
        }
«section:code»

    /**
     * One attempt under waitForReplicas: the acquire script and WAIT (or WAITAOF) in one pipeline on one
     * connection, as WAIT counts the replicas that have this connection's writes. Busy: 0. A shortfall
     * gives the lock back and throws ReplicaShortfallException, or calls onShortfall and keeps it.
     */
    private static function acquireAndWait(«var:client» $redis, ReplicaWait $wait, string $key, string $token, array $keys, array $args): int
    {
        [$reply, $waited, $error] = self::pipelineWithWait($redis, self::ACQUIRE, $keys, $args, $wait->command());
        if ($reply === 0) {
            return 0;
        }
        try {
            $shortfall = $wait->shortfall($key, $waited, $error);
        } catch (\Throwable $failure) {
            self::giveBack($redis, $key, $token);
            throw $failure;
        }
        if ($shortfall === null) {
            return $reply;
        }
        if ($wait->onShortfall !== 'release' && !$shortfall->misconfigured() && $reply !== null) {
            ($wait->onShortfall)($shortfall);
            return $reply;
        }
        throw new ReplicaShortfallException($shortfall, self::giveBack($redis, $key, $token));
    }

    /** Compare-and-delete after a shortfall: false when it could not run (the lock then ends with its lease). */
    private static function giveBack(«var:client» $redis, string $key, string $token): bool
    {
        try {
            self::releaseLock($redis, $key, $token);
            return true;
        } catch («var:error») {
            return false;
        }
    }
