// Redis Locksmith lock helper for go-redis v9, generated from the Locksmith script pack.
// Update it with the extension rather than by hand: the tags below tell an outdated or edited copy.
// @locksmith-helper go-redis
// @locksmith-pack 2a715a3fb3eb
// @locksmith-script acquire 49fe292d035210612db402c8ea343fad6191a4f3
// @locksmith-script acquire_queued 273778d7c55f306da68b8c8bd9d6e1ec373e5070
// @locksmith-script extend 803506a1d3748187e99f5dceb249b9771ad4bf37
// @locksmith-script release dbaee1a0982f3cb60a2520f66af6bc67d62c7800
// @locksmith-digest 104a9490e31d1ab6cea7300aab74490d9659d305

// Package locksmith holds Redis locks with go-redis v9:
//
//	lease, err := locksmith.Acquire(ctx, rdb, "lock:{order:42}", 10*time.Second)
//	if err != nil {
//		return err
//	}
//	defer lease.Release(ctx)
//
// Options: WaitFor (how long to wait for another holder), RetryEvery (the longest sleep between
// tries), Fence (a fencing counter key) and Renew (extend the lease every ttl/3 until Release;
// Lost() is closed when that fails). TryAcquire tries once and never waits; ReleaseLock and
// ExtendLock take a key and a token.
//
// A waiter sleeps until the release wakes it (SSubscribe on the lock key), the holder's lease
// ends, or a jittered retry bound passes: a missed wake-up costs at most that bound. Another
// redis.Scripter than *redis.Client, *redis.ClusterClient or *redis.Ring waits by that bound alone.
package locksmith

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mathrand "math/rand"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Script.Run runs each script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again.
var (
	acquireScript = redis.NewScript(`-- @script acquire
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
return 1`)
	acquireQueuedScript = redis.NewScript(`-- @script acquire_queued
-- @summary Acquire like acquire.lua, or join the lock's waiter queue and reply how long the holder's lease has left.
-- @key lock required The lock key: a string holding the owner token while the lock is held.
-- @key waiters required Waiter queue: a sorted set of waiting tokens scored by arrival (server ms); same slot as lock.
-- @key fence optional Fencing counter, INCRed once per new holder; must share the lock key's hash slot.
-- @arg token token Owner token, unique per holder; binary-safe, non-empty.
-- @arg ttl_ms ms Lease in milliseconds, as for acquire.lua.
-- @arg queue_ms ms How long the waiters key lives after this call at least, so a queue of dead waiters expires.
-- @reply {0,P,W} Held by another owner: this token is queued (its place kept), P is the lock's PTTL, W waiters queued.
-- @reply {1,0,W} Acquired (or refreshed) without a fence key and taken off the queue; W other waiters queued.
-- @reply {N,0,W} With a fence key: the fencing token as for acquire.lua; W other waiters queued.
-- @error ERR A missing or malformed argument, named in the message; nothing was written.
-- @error WRONGTYPE The lock key is not a string or the waiters key not a sorted set; nothing was written.

if #KEYS < 2 or #KEYS > 3 then
  return redis.error_reply('ERR acquire_queued takes 2 or 3 keys (lock, waiters, optional fence), got ' .. #KEYS)
end
local token, ttl, queue_ms = ARGV[1], ARGV[2], ARGV[3]
if token == nil or token == '' then
  return redis.error_reply('ERR acquire_queued: ARGV[1] token must be a non-empty string')
end
local function bad_ms(i, name)
  local value = ARGV[i]
  if value == nil or not string.match(value, '^[1-9]%d*$') or #value > 15 then
    return 'ERR acquire_queued: ARGV[' .. i .. '] ' .. name .. ' must be a positive integer of milliseconds'
      .. " (decimal digits, no leading zero), got '" .. string.sub(tostring(value), 1, 32) .. "'"
  end
end
local bad = bad_ms(2, 'ttl_ms') or bad_ms(3, 'queue_ms')
if bad then
  return redis.error_reply(bad)
end

local lock, waiters, fence = KEYS[1], KEYS[2], KEYS[3]
local holder = redis.call('GET', lock)
redis.call('ZCARD', waiters)
-- The fence is checked before the first write, as INCR checks it ('007' is no integer to INCR):
-- an error leaves nothing written, the queue included.
local fenced
if fence then
  fenced = redis.call('GET', fence)
  if fenced and (not (fenced == '0' or string.match(fenced, '^[1-9]%d*$')) or #fenced > 15) then
    return redis.error_reply('ERR acquire_queued: fence key must hold a non-negative integer below 10^15'
      .. " (decimal digits, no leading zero), got '" .. string.sub(fenced, 1, 32) .. "'")
  end
end
if holder and holder ~= token then
  local now = redis.call('TIME')
  redis.call('ZADD', waiters, 'NX', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), token)
  if redis.call('PTTL', waiters) < tonumber(queue_ms) then
    redis.call('PEXPIRE', waiters, queue_ms)
  end
  return { 0, redis.call('PTTL', lock), redis.call('ZCARD', waiters) }
end

if holder then
  -- Same owner again (a retry after a lost reply): refresh the lease and keep the fencing token.
  redis.call('PEXPIRE', lock, ttl)
else
  redis.call('SET', lock, token, 'PX', ttl)
end
local result = 1
if fence then
  result = (holder and fenced and tonumber(fenced) > 0) and tonumber(fenced) or redis.call('INCR', fence)
end
redis.call('ZREM', waiters, token)
return { result, 0, redis.call('ZCARD', waiters) }`)
	extendScript = redis.NewScript(`-- @script extend
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
return 0`)
	releaseScript = redis.NewScript(`-- @script release
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
return 1`)
)

// ErrBusy matches (errors.Is) a BusyError; ErrLeaseLost a LeaseLostError.
var (
	ErrBusy      = errors.New("lock busy")
	ErrLeaseLost = errors.New("lease lost")
)

// BusyError: the lock stayed held by another owner for the whole wait.
type BusyError struct {
	Key    string
	Waited time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is held by another owner; gave up after waiting %d ms", e.Key, e.Waited.Milliseconds())
}

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// LeaseLostError: the lease ended while the holder still relied on it (taken by another owner,
// expired, or not renewable); Err is the Redis error where there was one.
type LeaseLostError struct {
	Key string
	Why string
	Err error
}

func (e *LeaseLostError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("lease on %s lost: %s: %v", e.Key, e.Why, e.Err)
	}
	return fmt.Sprintf("lease on %s lost: %s", e.Key, e.Why)
}

func (e *LeaseLostError) Is(target error) bool { return target == ErrLeaseLost }
func (e *LeaseLostError) Unwrap() error        { return e.Err }

type options struct {
	wait     time.Duration
	retry    time.Duration
	fenceKey string
	renew    bool
}

// Option configures Acquire.
type Option func(*options)

// WaitFor sets how long Acquire waits for another holder to let go before a BusyError
// (default 10 s; 0: try once).
func WaitFor(wait time.Duration) Option { return func(o *options) { o.wait = wait } }

// RetryEvery sets the longest sleep between two tries while waiting, jittered down to half
// (default 500 ms): how late a waiter that missed its wake-up is, at most.
func RetryEvery(retry time.Duration) Option { return func(o *options) { o.retry = retry } }

// Fence makes Acquire return a fencing token (Lease.Fence) that grows with every new holder.
// In Cluster the fence key needs the lock key's {hash tag}.
func Fence(key string) Option { return func(o *options) { o.fenceKey = key } }

// Renew extends the lease every ttl/3 until Release; Lost() is closed when a renewal fails.
func Renew() Option { return func(o *options) { o.renew = true } }

// Lease is a held lock.
type Lease struct {
	Key string
	// Token is this holder's owner token: the lock key's value while it is held.
	Token string
	// Fence is the fencing token with the Fence option (0 without): the guarded resource refuses older ones.
	Fence int64

	client   redis.Scripter
	queue    string
	ttl      time.Duration
	lost     chan struct{}
	lostErr  error
	mu       sync.Mutex
	released bool
	stop     chan struct{}
	renewing sync.WaitGroup
}

var jitter = struct {
	sync.Mutex
	*mathrand.Rand
}{Rand: mathrand.New(mathrand.NewSource(time.Now().UnixNano()))}

func run(ctx context.Context, client redis.Scripter, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	return script.Run(ctx, client, keys, args...).Int64()
}

// waitable is what waiting for wake-ups in line needs besides the scripts: *redis.Client,
// *redis.ClusterClient and *redis.Ring have it.
type waitable interface {
	SSubscribe(ctx context.Context, channels ...string) *redis.PubSub
	ZRem(ctx context.Context, key string, members ...interface{}) *redis.IntCmd
}

// waitersKey is the waiter queue of a plain lock, in its hash slot: lock:{order:42} ->
// lock:{order:42}:waiters, lock:order:42 -> {lock:order:42}:waiters; "" for a key with '}' and no
// hash tag.
func waitersKey(key string) string {
	if open := strings.IndexByte(key, '{'); open >= 0 && strings.IndexByte(key[open+1:], '}') > 0 {
		return key + ":waiters"
	}
	if strings.Contains(key, "}") {
		return ""
	}
	return "{" + key + "}:waiters"
}

// Acquire takes the lock with a lease of ttl (whole milliseconds, at least 1), waiting up to
// WaitFor in line (first come, first served) for the release to wake it, then a BusyError.
// Redis errors are returned as they are; ctx cancels the wait. client: a *redis.Client,
// *redis.ClusterClient or *redis.Ring (any redis.Scripter).
func Acquire(ctx context.Context, client redis.Scripter, key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o := options{wait: 10 * time.Second, retry: 500 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return nil, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	if o.wait < 0 {
		return nil, fmt.Errorf("locksmith: WaitFor must not be negative, got %v", o.wait)
	}
	if o.retry < time.Millisecond {
		return nil, fmt.Errorf("locksmith: RetryEvery must be at least 1 ms, got %v", o.retry)
	}
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	token := fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(random))
	fence := []string{}
	if o.fenceKey != "" {
		fence = append(fence, o.fenceKey)
	}
	waiting, canWait := client.(waitable)
	queue := ""
	if canWait && o.wait > 0 {
		queue = waitersKey(key)
	}
	try := func() (int64, time.Duration, error) {
		reply, err := run(ctx, client, acquireScript, append([]string{key}, fence...), token, ttl.Milliseconds())
		return reply, -1, err
	}
	if queue != "" {
		// In line: the release takes the first waiter off the queue and wakes exactly that one.
		keys := append([]string{key, queue}, fence...)
		queueMs := (o.wait + 2*o.retry).Milliseconds()
		try = func() (int64, time.Duration, error) {
			reply, err := acquireQueuedScript.Run(ctx, client, keys, token, ttl.Milliseconds(), queueMs).Int64Slice()
			if err != nil || len(reply) < 2 {
				return 0, -1, err
			}
			leaseLeft := time.Duration(reply[1]) * time.Millisecond
			if reply[1] == -2 {
				leaseLeft = 0
			}
			return reply[0], leaseLeft, nil
		}
	}
	reply, err := take(ctx, waiting, canWait, key, token, o, try)
	if reply == 0 && queue != "" {
		// Leave the line (with a fresh context: ctx may be why); failing that, the queue ends by itself.
		waiting.ZRem(context.Background(), queue, token)
	}
	if err != nil {
		return nil, err
	}
	if reply == 0 {
		return nil, &BusyError{Key: key, Waited: o.wait}
	}
	lease := &Lease{Key: key, Token: token, client: client, queue: queue, ttl: ttl, lost: make(chan struct{}), stop: make(chan struct{})}
	if o.fenceKey != "" {
		lease.Fence = reply
	}
	if o.renew {
		lease.renewing.Add(1)
		go lease.renew()
	}
	return lease, nil
}

// TryAcquire tries once and never waits: the lease and true, or nil and false while another
// holder has the lock (WaitFor is ignored). Redis errors are returned as they are.
func TryAcquire(ctx context.Context, client redis.Scripter, key string, ttl time.Duration, opts ...Option) (*Lease, bool, error) {
	lease, err := Acquire(ctx, client, key, ttl, append(opts, WaitFor(0))...)
	if errors.Is(err, ErrBusy) {
		return nil, false, nil
	}
	return lease, err == nil, err
}

// ReleaseLock deletes key while it holds token (compare-and-delete), waking a waiter: true; false
// when it held another token or none.
func ReleaseLock(ctx context.Context, client redis.Scripter, key, token string) (bool, error) {
	held, err := run(ctx, client, releaseScript, []string{key}, token)
	return held == 1, err
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): true; false when
// it held another token or none.
func ExtendLock(ctx context.Context, client redis.Scripter, key, token string, ttl time.Duration) (bool, error) {
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return false, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	held, err := run(ctx, client, extendScript, []string{key}, token, ttl.Milliseconds())
	return held == 1, err
}

// take tries; while the lock is held and WaitFor lasts, subscribes to its wake-ups, tries again
// (a release may have gone out before the subscription), then sleeps until woken, until the
// holder's lease ends or for the jittered retry bound, and tries again. The last reply.
func take(ctx context.Context, client waitable, canWait bool, key, token string, o options, try func() (int64, time.Duration, error)) (int64, error) {
	deadline := time.Now().Add(o.wait)
	reply, _, err := try()
	if err != nil || reply != 0 || o.wait == 0 {
		return reply, err
	}
	var wakeups <-chan *redis.Message
	if canWait {
		// The scripts that free a lock SPUBLISH on its name: an empty payload (one waiter per
		// client), '*' (all) or the token of the waiter to wake. Until the subscription is
		// confirmed (or when it fails: a server before 7.0, no channel rights) the timer covers.
		pubsub := client.SSubscribe(ctx, key)
		defer pubsub.Close()
		confirm, cancel := context.WithTimeout(ctx, o.retry)
		if _, err := pubsub.Receive(confirm); err == nil {
			wakeups = pubsub.Channel()
		}
		cancel()
	}
	for {
		reply, leaseLeft, err := try()
		left := time.Until(deadline)
		if err != nil || reply != 0 || left <= 0 {
			return reply, err
		}
		jitter.Lock()
		sleep := o.retry/2 + time.Duration(jitter.Int63n(int64(o.retry/2)+1))
		jitter.Unlock()
		if left < sleep {
			sleep = left
		}
		if leaseLeft >= 0 && leaseLeft < sleep {
			sleep = leaseLeft
		}
		if err := wait(ctx, wakeups, token, sleep); err != nil {
			return 0, err
		}
	}
}

// wait returns when a wake-up for token comes, after d, or with ctx's error when it ends.
func wait(ctx context.Context, wakeups <-chan *redis.Message, token string, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		case message, open := <-wakeups:
			if !open || message.Payload == "" || message.Payload == "*" || message.Payload == token {
				return nil
			}
		}
	}
}

// Lost is closed when a renewal finds the lease gone or fails: stop writing.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err is nil while the lease is held as far as renewal knows, else a *LeaseLostError.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr
}

// Extend sets the lease to ttl from now; false when it is no longer held.
func (l *Lease) Extend(ctx context.Context, ttl time.Duration) (bool, error) {
	return ExtendLock(ctx, l.client, l.Key, l.Token, ttl)
}

// Release stops renewing and deletes the lock if this lease still holds it, waking a waiter;
// false when it no longer did. If it fails, the lock expires after its TTL.
func (l *Lease) Release(ctx context.Context) (bool, error) {
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return false, nil
	}
	l.released = true
	close(l.stop)
	l.mu.Unlock()
	l.renewing.Wait() // a renewal in flight ends before the release
	keys := []string{l.Key}
	if l.queue != "" {
		keys = append(keys, l.queue) // taken in line: wake the next in line
	}
	held, err := run(ctx, l.client, releaseScript, keys, l.Token)
	return held == 1, err
}

func (l *Lease) renew() {
	defer l.renewing.Done()
	ticker := time.NewTicker(l.ttl / 3)
	defer ticker.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ticker.C:
			held, err := l.Extend(context.Background(), l.ttl)
			switch {
			case err != nil:
				l.lose(&LeaseLostError{Key: l.Key, Why: "renewal failed, it may expire unseen", Err: err})
				return
			case !held:
				l.lose(&LeaseLostError{Key: l.Key, Why: "taken by another owner or expired"})
				return
			}
		}
	}
}

func (l *Lease) lose(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lostErr = err
	close(l.lost)
}
