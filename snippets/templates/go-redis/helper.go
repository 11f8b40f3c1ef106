«header»

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
«kinds:std-imports»
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

«set:client»redis.Scripter
// Script.Run runs each script by its SHA1 (EVALSHA); on NOSCRIPT (script cache flushed, restart,
// failover) it sends the source once with EVAL, which caches it again.
var (
	acquireScript = redis.NewScript(`«lua:acquire»`)
	acquireQueuedScript = redis.NewScript(`«lua:acquire_queued»`)
	extendScript = redis.NewScript(`«lua:extend»`)
	releaseScript = redis.NewScript(`«lua:release»`)
«kinds:scripts»
)

«include:_go/core»

// ReleaseLock deletes key while it holds token (compare-and-delete), waking a waiter: true; false
// when it held another token or none.
func ReleaseLock(ctx context.Context, client redis.Scripter, key, token string) (bool, error) {
	held, err := run(ctx, client, releaseScript, []string{key}, token)
	return held == 1, err
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): true; false when
// it held another token or none.
func ExtendLock(ctx context.Context, client redis.Scripter, key, token string, ttl time.Duration) (bool, error) {
	return extend(ctx, client, extendScript, key, token, ttl)
}

func run(ctx context.Context, client redis.Scripter, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	return script.Run(ctx, client, keys, args...).Int64()
}

func runQueued(ctx context.Context, client redis.Scripter, keys []string, args ...interface{}) ([]int64, error) {
	return acquireQueuedScript.Run(ctx, client, keys, args...).Int64Slice()
}

// waitable is what waiting for wake-ups in line needs besides the scripts: *redis.Client,
// *redis.ClusterClient and *redis.Ring have it.
type waitable interface {
	SSubscribe(ctx context.Context, channels ...string) *redis.PubSub
	ZRem(ctx context.Context, key string, members ...interface{}) *redis.IntCmd
}

func canQueue(client redis.Scripter) bool {
	_, ok := client.(waitable)
	return ok
}

// leaveLine takes a waiter that gave up off the queue, with a fresh context: ctx may be why.
func leaveLine(client redis.Scripter, queue, token string) {
	client.(waitable).ZRem(context.Background(), queue, token)
}

// wakeups are a waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, an empty
// payload (one waiter per client), '*' (all) or the token of the waiter to wake.
type wakeups struct {
	pubsub   *redis.PubSub
	messages <-chan *redis.Message
	token    string
}

// listen subscribes to key's wake-ups. Until the subscription is confirmed (or when it fails: a
// server before 7.0, no channel rights) the timer covers.
func listen(ctx context.Context, client redis.Scripter, key, token string, patience time.Duration) *wakeups {
	w := &wakeups{token: token}
	if waiting, ok := client.(waitable); ok {
		w.pubsub = waiting.SSubscribe(ctx, key)
		confirm, cancel := context.WithTimeout(ctx, patience)
		if _, err := w.pubsub.Receive(confirm); err == nil {
			w.messages = w.pubsub.Channel()
		}
		cancel()
	}
	return w
}

// wait returns when a wake-up for this waiter comes, after d, or with ctx's error when it ends.
func (w *wakeups) wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		case message, open := <-w.messages:
			if !open || message.Payload == "" || message.Payload == "*" || message.Payload == w.token {
				return nil
			}
		}
	}
}

func (w *wakeups) close() {
	if w.pubsub != nil {
		w.pubsub.Close()
	}
}
«kinds:code»
