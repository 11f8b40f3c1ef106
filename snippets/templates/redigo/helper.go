«header»

// Package locksmith holds Redis locks with redigo:
//
//	lease, err := locksmith.Acquire(ctx, pool, "lock:{order:42}", 10*time.Second)
//	if err != nil {
//		return err
//	}
//	defer lease.Release(ctx)
//
// Options: WaitFor (how long to wait for another holder), Fence (a fencing counter key) and
// Renew (extend the lease every ttl/3 until Release; Lost() is closed when that fails).
package locksmith

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mathrand "math/rand"
	"os"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Script.Do runs each script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again. Acquire's key count
// varies (the fence key is optional), so it comes first among the arguments.
var (
	acquireScript = redis.NewScript(-1, `«lua:acquire»`)
	extendScript = redis.NewScript(1, `«lua:extend»`)
	releaseScript = redis.NewScript(1, `«lua:release»`)
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

// Pool hands out connections: a *redis.Pool. A redigo Conn is not safe for concurrent use, so
// every script call (and the renewal goroutine) takes its own.
type Pool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

type options struct {
	wait     time.Duration
	fenceKey string
	renew    bool
}

// Option configures Acquire.
type Option func(*options)

// WaitFor sets how long Acquire waits for another holder to let go before a BusyError
// (default 10 s; 0: try once).
func WaitFor(wait time.Duration) Option { return func(o *options) { o.wait = wait } }

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

	pool     Pool
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

func run(ctx context.Context, pool Pool, script *redis.Script, keysAndArgs ...interface{}) (int64, error) {
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return redis.Int64(script.Do(conn, keysAndArgs...))
}

// Acquire takes the lock with a lease of ttl (whole milliseconds, at least 1), waiting with
// jittered back-off (10 ms doubling to 500 ms, ±50 %) up to WaitFor, then a BusyError.
// Redis errors are returned as they are; ctx cancels the wait.
func Acquire(ctx context.Context, pool Pool, key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o := options{wait: 10 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return nil, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	if o.wait < 0 {
		return nil, fmt.Errorf("locksmith: WaitFor must not be negative, got %v", o.wait)
	}
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	token := fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(random))
	keysAndArgs := []interface{}{1, key, token, ttl.Milliseconds()}
	if o.fenceKey != "" {
		keysAndArgs = []interface{}{2, key, o.fenceKey, token, ttl.Milliseconds()}
	}
	deadline := time.Now().Add(o.wait)
	for attempt := 0; ; attempt++ {
		reply, err := run(ctx, pool, acquireScript, keysAndArgs...)
		if err != nil {
			return nil, err
		}
		if reply != 0 {
			lease := &Lease{Key: key, Token: token, pool: pool, ttl: ttl, lost: make(chan struct{}), stop: make(chan struct{})}
			if o.fenceKey != "" {
				lease.Fence = reply
			}
			if o.renew {
				lease.renewing.Add(1)
				go lease.renew()
			}
			return lease, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, &BusyError{Key: key, Waited: o.wait}
		}
		if err := waitTurn(ctx, attempt, left); err != nil {
			return nil, err
		}
	}
}

// waitTurn sleeps before the next try: jittered, doubling, never past the wait's end.
func waitTurn(ctx context.Context, attempt int, left time.Duration) error {
	backoff := 500 * time.Millisecond
	if attempt < 6 {
		backoff = 10 * time.Millisecond << attempt
	}
	jitter.Lock()
	backoff = backoff/2 + time.Duration(jitter.Int63n(int64(backoff)))
	jitter.Unlock()
	if backoff > left {
		backoff = left
	}
	timer := time.NewTimer(backoff)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
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
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return false, fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	held, err := run(ctx, l.pool, extendScript, l.Key, l.Token, ttl.Milliseconds())
	return held == 1, err
}

// Release stops renewing and deletes the lock if this lease still holds it; false when it no
// longer did. If it fails, the lock expires after its TTL.
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
	held, err := run(ctx, l.pool, releaseScript, l.Key, l.Token)
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
