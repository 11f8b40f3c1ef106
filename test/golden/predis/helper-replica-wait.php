<?php
// Redis Locksmith lock helper for Predis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper predis kinds=replica-wait
// @locksmith-pack 0d8270976b00
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-digest f3f03ded6670cd49fa5d2bd98868b6c74630adcf

declare(strict_types=1);

// Redis locks for Predis (PHP 8.1+): Locksmith::withLock($client, $key, $ttlMs, fn ($lease) => ...) holds
// a lock around the callback; acquire() and $lease->release() are for code that cannot use one;
// tryAcquire() tries once and never waits (null when busy); releaseLock() and extendLock() take a key
// and a token. With renew: true the callback calls $lease->check() between steps (PHP has no timer
// thread). Waiters poll with jittered back-off, never past the holder's lease (PTTL after a busy try):
// Predis 1.x has no consumer for SSUBSCRIBE's wake-ups.

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
        private readonly \Predis\ClientInterface $redis,
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

final class Locksmith
{
    public const ACQUIRE = <<<'LUA'
-- @script acquire
-- @summary Take the lock when it is free; refresh the lease when this owner already holds it.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder (host, pid and a random part); binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Held by another owner: nothing changed.
-- @reply 1 Acquired (or refreshed, when this token already held it) without a fence key.
-- @reply N With a fence key: the fencing token, a new INCR for a new holder, the current value for a refresh.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR acquire takes 1 or 2 keys (lock, optional fence), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR acquire: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR acquire: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

local lock, fence = KEYS[1], KEYS[2]
local holder = redis.call('GET', lock)
-- The fence is checked before the first write, as INCR checks it ('007' is no integer to INCR):
-- an error leaves nothing written, whoever holds the lock.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR acquire: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
if holder and holder ~= token then
  return 0
end

if holder then
  -- Same owner again (a retry after a lost reply): refresh the lease and keep the fencing token.
  redis.call('PEXPIRE', lock, ttl)
  if fenced and tonumber(fenced) > 0 then
    return tonumber(fenced)
  end
else
  redis.call('SET', lock, token, 'PX', ttl)
end
if fence then
  return redis.call('INCR', fence)
end
return 1

LUA;
    public const EXTEND = <<<'LUA'
-- @script extend
-- @summary Compare-and-extend: set the lease to ttl_ms only while the lock holds this owner's token.
-- @key lock required The lock key.
-- @arg token token The owner token the lock was acquired with.
-- @arg ttl_ms ms New lease in ms from now: a positive integer in decimal digits, no leading zero, at most 15 digits.
-- @reply 0 Not held by this token: nothing changed, and the key is never created.
-- @reply 1 Held by this token; its TTL is now ttl_ms.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR extend takes exactly 1 key (lock), got ' .. #KEYS)
end
local token, ttl = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR extend: ARGV[1] token must be a non-empty string')
end
if ttl == nil or not string.match(ttl, '^[1-9]%d*$') or #ttl > 15 then
  return redis.error_reply('ERR extend: ARGV[2] ttl_ms must be a positive integer of milliseconds'
    .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(ttl), 1, 32) .. "'")
end

if redis.call('GET', KEYS[1]) == token then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0

LUA;
    public const RELEASE = <<<'LUA'
-- @script release
-- @summary Compare-and-delete: delete the lock only while it still holds this owner's token, and wake a waiter.
-- @key lock required The lock key.
-- @key waiters optional The lock's waiter queue (see acquire_queued); must share the lock key's hash slot.
-- @arg token token The owner token the lock was acquired with.
-- @reply 0 Not held by this token (expired, released, or taken by another owner): nothing changed.
-- @reply 1 Held by this token and now deleted; the first queued waiter, if any, was taken off the queue and woken.
-- @signal lock On delete: the first queued waiter's token (taken off the queue), or empty with no queue or none queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string, or the waiters key not a sorted set; nothing was written.

if #KEYS < 1 or #KEYS > 2 then
  return redis.error_reply('ERR release takes 1 or 2 keys (lock, optional waiters), got ' .. #KEYS)
end
local token = ARGV[1]
if token == nil or token == '' then
  return redis.error_reply('ERR release: ARGV[1] token must be a non-empty string')
end

local lock, waiters = KEYS[1], KEYS[2]
if redis.call('GET', lock) ~= token then
  return 0
end
if waiters then
  -- A waiters key of another type fails here, before the delete.
  redis.call('ZCARD', waiters)
end
redis.call('DEL', lock)
local wake = ''
if waiters then
  wake = redis.call('ZPOPMIN', waiters)[1] or ''
end
-- pcall: the wake-up is an optimisation. A server without SPUBLISH (before 7.0) or an ACL user
-- without channel rights still releases; waiters then find the lock by their retry timer.
redis.pcall('SPUBLISH', lock, wake)
return 1

LUA;

    /**
     * Takes the lock, waiting up to $waitMs with jittered back-off (10 ms doubling to $retryMs, jittered down to half)
     * never past the holder's lease (PTTL), then LockBusyException. $ttlMs: how long the lock outlives a holder that
     * dies without releasing it. $fenceKey: a fencing counter key (in Cluster, with the lock key's {hash tag}).
     * Redis errors are thrown as the client throws them.
     */
    public static function acquire(
        \Predis\ClientInterface $redis,
        string $key,
        int $ttlMs,
        int $waitMs = 10_000,
        ?string $fenceKey = null,
        bool $renew = false,
        int $retryMs = 500,
        ?array $waitForReplicas = null,
    ): LocksmithLease {
        if ($waitForReplicas !== null && !empty($reentrant)) { // $reentrant: when the helper has the reentrant lock
            throw new \InvalidArgumentException('waitForReplicas works with a plain lock, not a reentrant one');
        }
        $wait = $waitForReplicas === null ? null : ReplicaWait::of($waitForReplicas, $ttlMs);
        $token = self::token();
        $keys = $fenceKey === null ? [$key] : [$key, $fenceKey];
        $attempt = fn () => self::run($redis, self::ACQUIRE, $keys, [$token, $ttlMs]);
        if ($wait !== null) {
            $attempt = fn () => self::acquireAndWait($redis, $wait, $key, $token, $keys, [$token, $ttlMs]);
        }
        $reply = self::take($redis, $key, $ttlMs, $waitMs, $retryMs, $attempt);
        return new LocksmithLease($redis, $key, $token, $fenceKey === null ? null : $reply, $ttlMs, $renew);
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
        int $retryMs = 500,
        ?array $waitForReplicas = null,
    ): mixed {
        $lease = self::acquire(
            $redis,
            $key,
            $ttlMs,
            $waitMs,
            $fenceKey,
            $renew,
            $retryMs,
            waitForReplicas: $waitForReplicas,
        );
        return self::hold($lease, $fn);
    }

    /**
     * One attempt under waitForReplicas: the acquire script and WAIT (or WAITAOF) in one pipeline on one
     * connection, as WAIT counts the replicas that have this connection's writes. Busy: 0. A shortfall
     * gives the lock back and throws ReplicaShortfallException, or calls onShortfall and keeps it.
     */
    private static function acquireAndWait(\Predis\ClientInterface $redis, ReplicaWait $wait, string $key, string $token, array $keys, array $args): int
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
    private static function giveBack(\Predis\ClientInterface $redis, string $key, string $token): bool
    {
        try {
            self::releaseLock($redis, $key, $token);
            return true;
        } catch (\Predis\PredisException) {
            return false;
        }
    }

    /**
     * The acquire script and the wait in one pipeline(): [the script's reply (null when unknown), the
     * wait's reply, its error]. On NOSCRIPT the pair goes again with EVAL.
     */
    private static function pipelineWithWait(\Predis\ClientInterface $redis, string $lua, array $keys, array $args, array $wait): array
    {
        $connection = $redis->getConnection();
        if ($connection instanceof \Predis\Connection\AggregateConnectionInterface
            // A replication sends both to its master: Predis 2 names it Replication\, 1.x Aggregate\.
            && !$connection instanceof \Predis\Connection\Replication\ReplicationInterface
            && !$connection instanceof \Predis\Connection\Aggregate\ReplicationInterface) {
            throw new \InvalidArgumentException('waitForReplicas needs a Predis client of one server or a replication: a cluster pipeline cannot route WAIT to the lock\'s node');
        }
        $send = fn (string ...$script): array => $redis->pipeline(function ($pipe) use ($script, $keys, $args, $wait) {
            $pipe->executeCommand(\Predis\Command\RawCommand::create(...$script, ...[count($keys), ...$keys, ...$args]));
            $pipe->executeCommand(\Predis\Command\RawCommand::create(...$wait));
        });
        try {
            try {
                [$reply, $waited] = $send('EVALSHA', sha1($lua));
            } catch (\Predis\Response\ServerException $error) {
                if (!str_starts_with($error->getMessage(), 'NOSCRIPT')) {
                    throw $error;
                }
                [$reply, $waited] = $send('EVAL', $lua);
            }
        } catch (\Predis\Response\ServerException $error) {
            return [null, null, $error]; // the acquire's or the wait's: Predis throws the first error reply
        } catch (\Predis\CommunicationException) {
            return [null, null, 'connection-lost'];
        }
        return [(int) $reply, $waited, null];
    }

    /** Runs $fn($lease) and releases the lease, also when $fn throws; LeaseLostException when it was gone by then. */
    private static function hold(LocksmithLease $lease, callable $fn): mixed
    {
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
            throw new LeaseLostException($lease->key, 'it expired or was taken before release');
        }
        return $result;
    }

    /**
     * Runs $attempt (an acquire script's call) until it takes the lock (its reply) or $waitMs passes (LockBusyException),
     * never sleeping past the lock's lease (PTTL after a busy try): a dead holder's lock is taken as it ends.
     */
    private static function take(\Predis\ClientInterface $redis, string $key, int $ttlMs, int $waitMs, int $retryMs, callable $attempt, string $holders = 'another owner'): int
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
