«header»

// Package locksmith holds Redis locks with redigo:
//
//	lease, err := locksmith.Acquire(ctx, pool, "lock:{order:42}", 10*time.Second)
//	if err != nil {
//		return err
//	}
//	defer lease.Release(ctx)
//
// AcquireRead, AcquireWrite and AcquireSemaphore take the other kinds of lock the same way.
// Options: WaitFor (how long to wait for another holder), RetryEvery (the longest sleep between
// tries), Fence (a fencing counter key), Reentrant (an owner that may take the lock again) and
// Renew (extend the lease every ttl/3 until Release; Lost() is closed when that fails).
// TryAcquire tries once and never waits; ReleaseLock and ExtendLock take a connection, a key and a
// token.
//
// A waiter sleeps until the release wakes it (SSUBSCRIBE on the lock key, on a connection of its
// own dialed the pool's way), the holder's lease ends, or a jittered retry bound passes: a missed
// wake-up costs at most that bound. A Pool that is no *redis.Pool waits by the retry bound alone.
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

	"github.com/gomodule/redigo/redis"
)

// Script.Do runs each script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again. A key count of -1: the
// count comes first among the arguments (the fence key and the waiter queue are optional).
var (
	acquireScript = redis.NewScript(-1, `«lua:acquire»`)
	acquireQueuedScript = redis.NewScript(-1, `«lua:acquire_queued»`)
	extendScript = redis.NewScript(1, `«lua:extend»`)
	releaseScript = redis.NewScript(-1, `«lua:release»`)
	reentrantAcquireScript = redis.NewScript(1, `«lua:reentrant_acquire»`)
	reentrantExtendScript = redis.NewScript(1, `«lua:reentrant_extend»`)
	reentrantReleaseScript = redis.NewScript(-1, `«lua:reentrant_release»`)
	readAcquireScript = redis.NewScript(1, `«lua:read_acquire»`)
	writeAcquireScript = redis.NewScript(1, `«lua:write_acquire»`)
	rwExtendScript = redis.NewScript(1, `«lua:rw_extend»`)
	rwReleaseScript = redis.NewScript(-1, `«lua:rw_release»`)
	semaphoreAcquireScript = redis.NewScript(1, `«lua:semaphore_acquire»`)
	semaphoreExtendScript = redis.NewScript(1, `«lua:semaphore_extend»`)
	semaphoreReleaseScript = redis.NewScript(-1, `«lua:semaphore_release»`)
)

// kind is a kind of lock: the scripts that extend and release it, and who holds it when it is busy.
type kind struct {
	extend, release *redis.Script
	holders         string
}

var (
	plainKind     = kind{extendScript, releaseScript, "another owner"}
	reentrantKind = kind{reentrantExtendScript, reentrantReleaseScript, "another owner"}
	readKind      = kind{rwExtendScript, rwReleaseScript, "a writer"}
	writeKind     = kind{rwExtendScript, rwReleaseScript, "readers or another writer"}
	semaphoreKind = kind{semaphoreExtendScript, semaphoreReleaseScript, "the other holders of its permits"}
)

// ErrBusy matches (errors.Is) a BusyError; ErrLeaseLost a LeaseLostError.
var (
	ErrBusy      = errors.New("lock busy")
	ErrLeaseLost = errors.New("lease lost")
)

// BusyError: the lock stayed held for the whole wait (by Holders).
type BusyError struct {
	Key     string
	Waited  time.Duration
	Holders string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is held by %s; gave up after waiting %d ms", e.Key, e.Holders, e.Waited.Milliseconds())
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

// Pool hands out connections: a *redis.Pool. A redigo Conn is not safe for concurrent use, so
// every script call (and the renewal goroutine) takes its own.
type Pool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

type options struct {
	wait     time.Duration
	retry    time.Duration
	fenceKey string
	owner    string
	renew    bool
}

// Option configures Acquire, AcquireRead, AcquireWrite and AcquireSemaphore.
type Option func(*options)

// WaitFor sets how long to wait for another holder to let go before a BusyError
// (default 10 s; 0: try once).
func WaitFor(wait time.Duration) Option { return func(o *options) { o.wait = wait } }

// RetryEvery sets the longest sleep between two tries while waiting, jittered down to half
// (default 500 ms): how late a waiter that missed its wake-up is, at most.
func RetryEvery(retry time.Duration) Option { return func(o *options) { o.retry = retry } }

// Fence makes Acquire return a fencing token (Lease.Fence) that grows with every new holder.
// In Cluster the fence key needs the lock key's {hash tag}.
func Fence(key string) Option { return func(o *options) { o.fenceKey = key } }

// Reentrant makes Acquire take a reentrant lock held by owner (unique to your caller, e.g. a job
// id): an Acquire by the same owner while it holds the lock takes it again, and each take needs
// its own Release.
func Reentrant(owner string) Option { return func(o *options) { o.owner = owner } }

// Renew extends the lease every ttl/3 until Release; Lost() is closed when a renewal fails.
func Renew() Option { return func(o *options) { o.renew = true } }

// Lease is a held lock, read lock, write lock or semaphore permit.
type Lease struct {
	Key string
	// Token is this holder's owner token: the lock key's value (or its member's name) while it is held.
	Token string
	// Fence is the fencing token with the Fence option (0 without): the guarded resource refuses older ones.
	Fence int64

	pool        Pool
	kind        kind
	releaseKeys []interface{}
	ttl         time.Duration
	lost        chan struct{}
	lostErr     error
	mu          sync.Mutex
	released    bool
	stop        chan struct{}
	renewing    sync.WaitGroup
}

var jitter = struct {
	sync.Mutex
	*mathrand.Rand
}{Rand: mathrand.New(mathrand.NewSource(time.Now().UnixNano()))}

func do(ctx context.Context, pool Pool, script *redis.Script, keysAndArgs ...interface{}) (interface{}, error) {
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return script.Do(conn, keysAndArgs...)
}

func run(ctx context.Context, pool Pool, script *redis.Script, keysAndArgs ...interface{}) (int64, error) {
	return redis.Int64(do(ctx, pool, script, keysAndArgs...))
}

func newToken(o options) (string, error) {
	host, _ := os.Hostname()
	if o.owner != "" {
		return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), o.owner), nil
	}
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(random)), nil
}

func configure(ttl time.Duration, opts []Option) (options, error) {
	o := options{wait: 10 * time.Second, retry: 500 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case ttl < time.Millisecond || ttl%time.Millisecond != 0:
		return o, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	case o.wait < 0:
		return o, fmt.Errorf("locksmith: WaitFor must not be negative, got %v", o.wait)
	case o.retry < time.Millisecond:
		return o, fmt.Errorf("locksmith: RetryEvery must be at least 1 ms, got %v", o.retry)
	case o.fenceKey != "" && o.owner != "":
		return o, errors.New("locksmith: Fence works with a plain lock, not a Reentrant one")
	}
	return o, nil
}

// attempt is one try: the script's reply (0: not taken) and, when the script says, how long the
// holder's lease has left (negative: unknown).
type attempt func() (reply int64, leaseLeft time.Duration, err error)

// take tries; while the lock is held and WaitFor lasts, subscribes to its wake-ups, tries again
// (a release may have gone out before the subscription), then sleeps until woken, until the
// holder's lease ends or for the jittered retry bound, and tries again. The last reply.
func take(ctx context.Context, pool Pool, key, token string, o options, try attempt) (int64, error) {
	deadline := time.Now().Add(o.wait)
	reply, _, err := try()
	if err != nil || reply != 0 || o.wait == 0 {
		return reply, err
	}
	w := listen(ctx, pool, key, token, o.retry)
	defer w.close()
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
		if err := w.wait(ctx, sleep); err != nil {
			return 0, err
		}
	}
}

// wakeups are a waiter's wake-ups, read by a goroutine from a connection of its own.
type wakeups struct {
	conn  redis.Conn
	woken chan struct{}
	done  chan struct{}
}

// listen subscribes to key's wake-ups: the scripts that free a lock SPUBLISH on its name, an
// empty payload (one waiter per client), '*' (all) or the token of the waiter to wake. It returns
// once subscribed, or after patience: a failed subscription (a server before 7.0, an ACL without
// channel rights) leaves the retry bound.
func listen(ctx context.Context, pool Pool, key, token string, patience time.Duration) *wakeups {
	w := &wakeups{woken: make(chan struct{}, 1), done: make(chan struct{})}
	p, ok := pool.(*redis.Pool)
	var conn redis.Conn
	var err error
	switch {
	case ok && p.DialContext != nil:
		conn, err = p.DialContext(ctx)
	case ok && p.Dial != nil:
		conn, err = p.Dial()
	default:
		err = errors.New("no dial function")
	}
	if err == nil {
		if err = conn.Send("SSUBSCRIBE", key); err == nil {
			err = conn.Flush()
		}
		if err != nil {
			conn.Close()
		}
	}
	if err != nil {
		close(w.done)
		return w
	}
	w.conn = conn
	subscribed := make(chan struct{})
	go func() {
		defer close(w.done)
		for {
			reply, err := redis.Values(conn.Receive())
			if err != nil || len(reply) != 3 {
				return // closed, or no subscription: the retry bound covers
			}
			event, _ := redis.String(reply[0], nil)
			payload, _ := redis.String(reply[2], nil)
			switch {
			case event == "ssubscribe":
				close(subscribed)
			case event == "smessage" && (payload == "" || payload == "*" || payload == token):
				select {
				case w.woken <- struct{}{}:
				default:
				}
			}
		}
	}()
	timer := time.NewTimer(patience)
	defer timer.Stop()
	select {
	case <-subscribed:
	case <-w.done:
	case <-timer.C:
	}
	return w
}

// wait returns when woken, after d, or with ctx's error when it ends.
func (w *wakeups) wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-w.woken:
		return nil
	case <-timer.C:
		return nil
	}
}

func (w *wakeups) close() {
	if w.conn != nil {
		w.conn.Close()
	}
	<-w.done
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
// Redis errors are returned as they are; ctx cancels the wait.
func Acquire(ctx context.Context, pool Pool, key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, err := configure(ttl, opts)
	if err != nil {
		return nil, err
	}
	token, err := newToken(o)
	if err != nil {
		return nil, err
	}
	ms := ttl.Milliseconds()
	if o.owner != "" {
		return acquireKind(ctx, pool, key, token, ttl, o, reentrantKind, reentrantAcquireScript, ms)
	}
	keys := []interface{}{key}
	if o.fenceKey != "" {
		keys = append(keys, o.fenceKey)
	}
	queue := ""
	if o.wait > 0 {
		queue = waitersKey(key)
	}
	try := func() (int64, time.Duration, error) {
		reply, err := run(ctx, pool, acquireScript, append(append([]interface{}{len(keys)}, keys...), token, ms)...)
		return reply, -1, err
	}
	if queue != "" {
		// In line: the release takes the first waiter off the queue and wakes exactly that one.
		queued := append([]interface{}{key, queue}, keys[1:]...)
		queueMs := (o.wait + 2*o.retry).Milliseconds()
		try = func() (int64, time.Duration, error) {
			args := append(append([]interface{}{len(queued)}, queued...), token, ms, queueMs)
			reply, err := redis.Int64s(do(ctx, pool, acquireQueuedScript, args...))
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
	reply, err := take(ctx, pool, key, token, o, try)
	if reply == 0 && queue != "" {
		// Leave the line (with a fresh context: ctx may be why); failing that, the queue ends by itself.
		if conn, err := pool.GetContext(context.Background()); err == nil {
			conn.Do("ZREM", queue, token)
			conn.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	if reply == 0 {
		return nil, &BusyError{Key: key, Waited: o.wait, Holders: plainKind.holders}
	}
	lease := newLease(pool, plainKind, key, token, ttl, o.renew, queue)
	if o.fenceKey != "" {
		lease.Fence = reply
	}
	return lease, nil
}

// TryAcquire tries once and never waits: the lease and true, or nil and false while another
// holder has the lock (WaitFor is ignored). Redis errors are returned as they are.
func TryAcquire(ctx context.Context, pool Pool, key string, ttl time.Duration, opts ...Option) (*Lease, bool, error) {
	lease, err := Acquire(ctx, pool, key, ttl, append(opts, WaitFor(0))...)
	if errors.Is(err, ErrBusy) {
		return nil, false, nil
	}
	return lease, err == nil, err
}

// ReleaseLock deletes key while it holds token (compare-and-delete), waking a waiter: true; false
// when it held another token or none.
func ReleaseLock(conn redis.Conn, key, token string) (bool, error) {
	held, err := redis.Int64(releaseScript.Do(conn, 1, key, token))
	return held == 1, err
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): true; false when
// it held another token or none.
func ExtendLock(conn redis.Conn, key, token string, ttl time.Duration) (bool, error) {
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return false, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	held, err := redis.Int64(extendScript.Do(conn, key, token, ttl.Milliseconds()))
	return held == 1, err
}

// AcquireRead takes a read lock: held with other readers, never with a writer.
func AcquireRead(ctx context.Context, pool Pool, key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	return acquireKind(ctx, pool, key, token, ttl, o, readKind, readAcquireScript, ttl.Milliseconds())
}

// AcquireWrite takes the write lock: held alone, with no reader. While it waits, its intent keeps
// new readers out (renewed by every try), so a stream of readers cannot starve it.
func AcquireWrite(ctx context.Context, pool Pool, key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	intentMs := int64(1)
	if o.wait > 0 {
		intentMs = 2 * o.retry.Milliseconds()
	}
	return acquireKind(ctx, pool, key, token, ttl, o, writeKind, writeAcquireScript, ttl.Milliseconds(), intentMs)
}

// AcquireSemaphore takes one of permits permits of the semaphore key, each holder with its own
// lease: a holder that dies gives its permit back when its lease ends. permits must be the same
// for every caller while any permit is held.
func AcquireSemaphore(ctx context.Context, pool Pool, key string, permits int, ttl time.Duration, opts ...Option) (*Lease, error) {
	if permits < 1 || permits > 999999999 {
		return nil, fmt.Errorf("locksmith: permits must be from 1 to 999999999, got %d", permits)
	}
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	return acquireKind(ctx, pool, key, token, ttl, o, semaphoreKind, semaphoreAcquireScript, ttl.Milliseconds(), permits)
}

// prepare checks the options of a read lock, write lock or semaphore, and makes the token.
func prepare(ttl time.Duration, opts []Option) (options, string, error) {
	o, err := configure(ttl, opts)
	if err != nil {
		return o, "", err
	}
	if o.fenceKey != "" || o.owner != "" {
		return o, "", errors.New("locksmith: Fence and Reentrant work with Acquire only")
	}
	token, err := newToken(o)
	return o, token, err
}

func acquireKind(ctx context.Context, pool Pool, key, token string, ttl time.Duration, o options, k kind, script *redis.Script, args ...interface{}) (*Lease, error) {
	try := func() (int64, time.Duration, error) {
		reply, err := run(ctx, pool, script, append([]interface{}{key, token}, args...)...)
		return reply, -1, err
	}
	reply, err := take(ctx, pool, key, token, o, try)
	if err != nil {
		return nil, err
	}
	if reply == 0 {
		return nil, &BusyError{Key: key, Waited: o.wait, Holders: k.holders}
	}
	return newLease(pool, k, key, token, ttl, o.renew, ""), nil
}

func newLease(pool Pool, k kind, key, token string, ttl time.Duration, renew bool, queue string) *Lease {
	lease := &Lease{Key: key, Token: token, pool: pool, kind: k, ttl: ttl, lost: make(chan struct{}), stop: make(chan struct{})}
	lease.releaseKeys = []interface{}{1, key}
	if queue != "" {
		lease.releaseKeys = []interface{}{2, key, queue}
	}
	if renew {
		lease.renewing.Add(1)
		go lease.renew()
	}
	return lease
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
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return false, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	held, err := run(ctx, l.pool, l.kind.extend, l.Key, l.Token, ttl.Milliseconds())
	return held == 1, err
}

// Release stops renewing and gives the hold back if this lease still has it, waking waiters;
// false when it no longer did. If it fails, the hold ends with its lease.
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
	held, err := run(ctx, l.pool, l.kind.release, append(l.releaseKeys, l.Token)...)
	return held != 0, err
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
