<?php
// Redis Locksmith lock helper for Predis, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper predis kinds=fenced-writes
// @locksmith-pack 0d8270976b00
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-script guarded_set 9123752b5f766ec8e73186dfe98daa6f4228d411
// @locksmith-script fenced_set 6bb1501cf1efdefb7ceeb735927fd60225f8fbdb
// @locksmith-digest a8d406979ebfa8e326a8a0a46c0fc6d114a23a62

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

    /**
     * Sets the string $dataKey to $value (its TTL kept) only while this lease still holds the lock, in
     * one call: false when it lapsed or another owner took it, and nothing was written. $dataKey must
     * be in the lock's hash slot (in Cluster, with the lock key's {hash tag}).
     */
    public function setIfHeld(string $dataKey, string $value): bool
    {
        if ($this->releaseLua !== Locksmith::RELEASE) {
            throw new \LogicException("setIfHeld works on a plain lock's lease; $this->key is another kind of lock");
        }
        return Locksmith::run($this->redis, Locksmith::GUARDED_SET, [$this->key, $dataKey], [$this->token, $value]) === 1;
    }

    /**
     * Writes $value into the hash $dataKey ({value, fence}) with this lease's fencing token, in any
     * slot: false when a newer token has written it already, and nothing was written.
     */
    public function setFenced(string $dataKey, string $value): bool
    {
        if ($this->fence === null) {
            throw new \LogicException("setFenced needs a fencing token: acquire $this->key with a \$fenceKey");
        }
        return Locksmith::run($this->redis, Locksmith::FENCED_SET, [$dataKey], [$this->fence, $value]) === 1;
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
    public const GUARDED_SET = <<<'LUA'
-- @script guarded_set
-- @summary Write a value only while the lock holds the writer's token, in one call: a lapsed holder writes nothing.
-- @key lock required The plain lock key: a string holding the owner token while held.
-- @key data required The string key to write, in the lock's hash slot; its TTL is kept.
-- @arg token token The owner token the lock was acquired with.
-- @arg value token The value to write (binary-safe, non-empty).
-- @reply 0 The lock does not hold this token (expired, released, or taken by another owner): nothing written.
-- @reply 1 The lock holds this token: data holds value now.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock or the data key is not a string; nothing was written.

if #KEYS ~= 2 then
  return redis.error_reply('ERR guarded_set takes exactly 2 keys (lock, data), got ' .. #KEYS)
end
local token, value = ARGV[1], ARGV[2]
if token == nil or token == '' then
  return redis.error_reply('ERR guarded_set: ARGV[1] token must be a non-empty string')
end
if value == nil or value == '' then
  return redis.error_reply('ERR guarded_set: ARGV[2] value must be a non-empty string')
end

local lock, data = KEYS[1], KEYS[2]
local holder = redis.call('GET', lock)
redis.call('GET', data)
if holder ~= token then
  return 0
end
redis.call('SET', data, value, 'KEEPTTL')
return 1

LUA;
    public const FENCED_SET = <<<'LUA'
-- @script fenced_set
-- @summary Write a value with the writer's fencing token, refused when a newer token has written the key already.
-- @key data required The data key: a hash {value: the value, fence: the highest fencing token that wrote it}.
-- @arg fence integer The writer's fencing token (acquire with a fence key replies it).
-- @arg value token The value to write (binary-safe, non-empty).
-- @reply 0 A newer fencing token has written data: refused, nothing written.
-- @reply 1 Written: data's value is value and its fence this token (equal tokens may write again).
-- @error ERR A missing or malformed argument, or a fence field that is no integer, named in the message; no write.
-- @error WRONGTYPE The data key is not a hash; nothing was written.

if #KEYS ~= 1 then
  return redis.error_reply('ERR fenced_set takes exactly 1 key (data), got ' .. #KEYS)
end
local fence, value = ARGV[1], ARGV[2]
if fence == nil or not string.match(fence, '^[1-9]%d*$') or #fence > 15 then
  return redis.error_reply('ERR fenced_set: ARGV[1] fence must be a positive integer'
    .. " (decimal digits, no leading zero, at most 15), got '" .. string.sub(tostring(fence), 1, 32) .. "'")
end
if value == nil or value == '' then
  return redis.error_reply('ERR fenced_set: ARGV[2] value must be a non-empty string')
end

local data = KEYS[1]
local newest = redis.call('HGET', data, 'fence')
if newest and (not string.match(newest, '^[1-9]%d*$') or #newest > 15) then
  return redis.error_reply("ERR fenced_set: the data key's fence field is not a positive integer, got '"
    .. string.sub(newest, 1, 32) .. "'")
end
if newest and tonumber(newest) > tonumber(fence) then
  return 0
end
redis.call('HSET', data, 'value', value, 'fence', fence)
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
    ): LocksmithLease {
        $token = self::token();
        $keys = $fenceKey === null ? [$key] : [$key, $fenceKey];
        $attempt = fn () => self::run($redis, self::ACQUIRE, $keys, [$token, $ttlMs]);
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
    ): mixed {
        $lease = self::acquire(
            $redis,
            $key,
            $ttlMs,
            $waitMs,
            $fenceKey,
            $renew,
            $retryMs,
        );
        return self::hold($lease, $fn);
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
