«header»

// Package locksmith holds Redis locks with redigo:
//
//	lease, err := locksmith.Acquire(ctx, pool, "lock:{order:42}", 10*time.Second)
//	if err != nil {
//		return err
//	}
//	defer lease.Release(ctx)
//
// Options: WaitFor (how long to wait for another holder), RetryEvery (the longest sleep between
// tries), Fence (a fencing counter key) and Renew (extend the lease every ttl/3 until Release;
// Lost() is closed when that fails).
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
«kinds:std-imports»
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

«set:client»Pool
// Script.Do runs each script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again. A key count of -1: the
// count comes first among the arguments.
var (
	acquireScript = redis.NewScript(-1, `«lua:acquire»`)
	acquireQueuedScript = redis.NewScript(-1, `«lua:acquire_queued»`)
	extendScript = redis.NewScript(-1, `«lua:extend»`)
	releaseScript = redis.NewScript(-1, `«lua:release»`)
«kinds:scripts»
)

// Pool hands out connections: a *redis.Pool. A redigo Conn is not safe for concurrent use, so
// every script call (and the renewal goroutine) takes its own.
type Pool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

«include:_go/core»

// ReleaseLock deletes key while it holds token (compare-and-delete), waking a waiter: true; false
// when it held another token or none.
func ReleaseLock(conn redis.Conn, key, token string) (bool, error) {
	held, err := redis.Int64(releaseScript.Do(conn, 1, key, token))
	return held == 1, err
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): true; false when
// it held another token or none.
func ExtendLock(conn redis.Conn, key, token string, ttl time.Duration) (bool, error) {
	if err := checkTTL(ttl); err != nil {
		return false, err
	}
	held, err := redis.Int64(extendScript.Do(conn, 1, key, token, ttl.Milliseconds()))
	return held == 1, err
}

func do(ctx context.Context, pool Pool, script *redis.Script, keys []string, args ...interface{}) (interface{}, error) {
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	keysAndArgs := []interface{}{len(keys)}
	for _, key := range keys {
		keysAndArgs = append(keysAndArgs, key)
	}
	return script.Do(conn, append(keysAndArgs, args...)...)
}

func run(ctx context.Context, pool Pool, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	return redis.Int64(do(ctx, pool, script, keys, args...))
}

func runQueued(ctx context.Context, pool Pool, keys []string, args ...interface{}) ([]int64, error) {
	return redis.Int64s(do(ctx, pool, acquireQueuedScript, keys, args...))
}

func canQueue(Pool) bool { return true }

// leaveLine takes a waiter that gave up off the queue, with a fresh context: ctx may be why.
func leaveLine(pool Pool, queue, token string) {
	if conn, err := pool.GetContext(context.Background()); err == nil {
		conn.Do("ZREM", queue, token)
		conn.Close()
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
«kinds:code»
