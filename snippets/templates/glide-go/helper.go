«header»

// Package locksmith holds Redis and Valkey locks with Valkey GLIDE for Go (*glide.Client or
// *glide.ClusterClient):
//
//	lease, err := locksmith.Acquire(ctx, client, "lock:{order:42}", 10*time.Second)
//	if err != nil {
//		return err
//	}
//	defer lease.Release(ctx)
//
// WithLock holds the lock around a func and releases it after. Options: WaitFor (how long to wait
// for another holder), RetryEvery (the longest sleep between tries), Fence (a fencing counter key)
// and Renew (extend the lease every ttl/3 until Release; Lost() is closed when that fails).
// TryAcquire tries once and never waits; ReleaseLock and ExtendLock take a key and a token.
//
// A waiter waits in line and sleeps until the holder's lease ends or a jittered retry bound
// passes (polling: a missed release costs at most that bound). GLIDE has sharded pub/sub in
// cluster mode only, and a client's subscriptions feed the one message queue its application
// reads: so on a *glide.ClusterClient given to EnableWakeups the release wakes the waiter
// (SSUBSCRIBE on the lock key, from a subscriber client of the helper's own), and elsewhere
// waiters poll.
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
	"strconv"
	"strings"
	"sync"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
«kinds:imports»
	// GLIDE's options package (Script, ScriptOptions), named redis: this package has an options type.
	redis "github.com/valkey-io/valkey-glide/go/v2/options"
)

«set:client»Client
// Client is what the helper runs its scripts on: *glide.Client and *glide.ClusterClient have it.
type Client interface {
	InvokeScriptWithOptions(ctx context.Context, script redis.Script, scriptOptions redis.ScriptOptions) (any, error)
	ZRem(ctx context.Context, key string, members []string) (int64, error)
}

// GLIDE runs a Script with EVALSHA and on NOSCRIPT (script cache flushed, restart, failover) loads
// it and runs it again; a flush between the two still gives NOSCRIPT, and then the source goes
// once with EVAL, which cannot miss.
var (
	acquireScript = newScript(`«lua:acquire»`)
	acquireQueuedScript = newScript(`«lua:acquire_queued»`)
	extendScript = newScript(`«lua:extend»`)
	releaseScript = newScript(`«lua:release»`)
«kinds:scripts»
)

// sources are the scripts' text, for EVAL.
var sources = map[*redis.Script]string{}

func newScript(source string) *redis.Script {
	script := redis.NewScript(source)
	sources[script] = source
	return script
}

«include:_go/core»

// WithLock runs fn while it holds the lock (Acquire's waiting and options), then releases it, also
// when fn panics: fn's error, else the release's.
func WithLock(ctx context.Context, client Client, key string, ttl time.Duration, fn func(*Lease) error, opts ...Option) (err error) {
	lease, err := Acquire(ctx, client, key, ttl, opts...)
	if err != nil {
		return err
	}
	defer func() {
		// A cancelled ctx must not leave the next holder waiting out the lease.
		if _, released := lease.Release(context.WithoutCancel(ctx)); err == nil {
			err = released
		}
	}()
	return fn(lease)
}

// ReleaseLock deletes key while it holds token (compare-and-delete), waking a waiter: true; false
// when it held another token or none.
func ReleaseLock(ctx context.Context, client Client, key, token string) (bool, error) {
	held, err := run(ctx, client, releaseScript, []string{key}, token)
	return held == 1, err
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): true; false when
// it held another token or none.
func ExtendLock(ctx context.Context, client Client, key, token string, ttl time.Duration) (bool, error) {
	return extend(ctx, client, extendScript, key, token, ttl)
}

func invoke(ctx context.Context, client Client, script *redis.Script, keys []string, args []interface{}) (any, error) {
	values := make([]string, len(args))
	for i, arg := range args {
		values[i] = fmt.Sprint(arg)
	}
	reply, err := client.InvokeScriptWithOptions(ctx, *script, *redis.NewScriptOptions().WithKeys(keys).WithArgs(values))
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "noscript") {
		return reply, err
	}
	eval := append(append([]string{"EVAL", sources[script], strconv.Itoa(len(keys))}, keys...), values...)
	switch c := client.(type) {
	case *glide.Client:
		return c.CustomCommand(ctx, eval)
	case *glide.ClusterClient:
		value, err := c.CustomCommand(ctx, eval)
		return value.SingleValue(), err
	}
	return reply, err
}

func run(ctx context.Context, client Client, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	reply, err := invoke(ctx, client, script, keys, args)
	if err != nil {
		return 0, err
	}
	if number, ok := reply.(int64); ok {
		return number, nil
	}
	return 0, fmt.Errorf("locksmith: the script replied %#v, not an integer", reply)
}

func runQueued(ctx context.Context, client Client, keys []string, args ...interface{}) ([]int64, error) {
	reply, err := invoke(ctx, client, acquireQueuedScript, keys, args)
	if err != nil {
		return nil, err
	}
	items, ok := reply.([]any)
	numbers := make([]int64, len(items))
	for i, item := range items {
		numbers[i], ok = item.(int64)
		if !ok {
			break
		}
	}
	if !ok {
		return nil, fmt.Errorf("locksmith: the script replied %#v, not integers", reply)
	}
	return numbers, nil
}

// Both GLIDE clients have ZREM: every waiter waits in line.
func canQueue(Client) bool { return true }

// leaveLine takes a waiter that gave up off the queue, with a fresh context: ctx may be why.
func leaveLine(client Client, queue, token string) {
	client.ZRem(context.Background(), queue, []string{token})
}

// EnableWakeups lets the waiters of a cluster client be woken by the release: GLIDE cannot
// duplicate a client, so at the first wait the helper opens a subscriber client of its own from
// configuration (the one client was made with), kept for the process's life. Call it once per
// client: a second call keeps the first subscriber.
func EnableWakeups(client *glide.ClusterClient, configuration *config.ClusterClientConfiguration) {
	subscribersMu.Lock()
	defer subscribersMu.Unlock()
	if subscribers[client] == nil {
		subscribers[client] = &subscriber{configuration: configuration, waiters: map[string]map[chan string]bool{}}
	}
}

var (
	subscribersMu sync.Mutex
	subscribers   = map[*glide.ClusterClient]*subscriber{}
)

// subscriber holds a cluster client's wake-ups: the lock keys it SSUBSCRIBEs to, each with its
// waiters' channels.
type subscriber struct {
	configuration *config.ClusterClientConfiguration
	mu            sync.Mutex
	client        *glide.ClusterClient
	waiters       map[string]map[chan string]bool
}

func (s *subscriber) add(ctx context.Context, key string, messages chan string, patience time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		client, err := glide.NewClusterClient(s.configuration)
		if err != nil {
			return err
		}
		queue, err := client.GetQueue()
		if err != nil {
			client.Close()
			return err
		}
		s.client = client
		go func() {
			for {
				message := <-queue.WaitForMessage()
				s.mu.Lock()
				for waiter := range s.waiters[message.Channel] {
					select {
					case waiter <- message.Message:
					default: // already woken
					}
				}
				s.mu.Unlock()
			}
		}()
	}
	if len(s.waiters[key]) == 0 {
		if err := s.client.SSubscribe(ctx, []string{key}, int(patience.Milliseconds())); err != nil {
			return err
		}
		s.waiters[key] = map[chan string]bool{}
	}
	s.waiters[key][messages] = true
	return nil
}

func (s *subscriber) remove(key string, messages chan string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiters[key], messages)
	if len(s.waiters[key]) == 0 {
		delete(s.waiters, key)
		s.client.SUnsubscribeLazy(context.Background(), []string{key})
	}
}

// wakeups are a waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, an empty
// payload (one waiter per client), '*' (all) or the token of the waiter to wake.
type wakeups struct {
	subscriber *subscriber
	key        string
	messages   chan string
	token      string
}

// listen subscribes to key's wake-ups on a cluster client given to EnableWakeups. Until the
// subscription is confirmed (or when it fails: a server before 7.0, no channel rights), and on
// any other client, the timer covers.
func listen(ctx context.Context, client Client, key, token string, patience time.Duration) *wakeups {
	w := &wakeups{key: key, token: token}
	cluster, ok := client.(*glide.ClusterClient)
	if !ok {
		return w
	}
	subscribersMu.Lock()
	s := subscribers[cluster]
	subscribersMu.Unlock()
	if s == nil {
		return w
	}
	messages := make(chan string, 1)
	if err := s.add(ctx, key, messages, patience); err == nil {
		w.subscriber, w.messages = s, messages
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
		case payload := <-w.messages:
			if payload == "" || payload == "*" || payload == w.token {
				return nil
			}
		}
	}
}

func (w *wakeups) close() {
	if w.subscriber != nil {
		w.subscriber.remove(w.key, w.messages)
	}
}
«kinds:code»
