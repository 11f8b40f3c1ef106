«header»

// Package locksmith holds Redis and Valkey locks with Valkey GLIDE for Go (*glide.Client or
// *glide.ClusterClient): lease, err := locksmith.Acquire(ctx, client, "lock:{order:42}",
// 10*time.Second), then defer lease.Release(ctx); WithLock holds it around a func. A waiter polls:
// after a busy try it sleeps until the holder's lease ends (PTTL), at most a jittered retry bound.
«kinds:doc»
package locksmith

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mathrand "math/rand"
	"os"
«kinds:std-imports»
	"strconv"
«kinds:strings-import»
«include-once:_go/import-strings»
	"sync"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
«kinds:imports»
	// GLIDE's options package (Script, ScriptOptions), named redis: this package has an options type.
	redis "github.com/valkey-io/valkey-glide/go/v2/options"
)

«set:client»Client
// Client is what the helper runs its scripts on: *glide.Client and *glide.ClusterClient have it.
type Client interface {
	InvokeScriptWithOptions(ctx context.Context, script redis.Script, scriptOptions redis.ScriptOptions) (any, error)
	PTTL(ctx context.Context, key string) (int64, error)
}

// GLIDE runs a Script with EVALSHA, and on NOSCRIPT loads it and runs it again; a flush between the
// two still gives NOSCRIPT, and then the source goes once with EVAL (sources), which cannot miss.
var (
	acquireScript = newScript(`«lua:acquire»`)
	extendScript = newScript(`«lua:extend»`)
	releaseScript = newScript(`«lua:release»`)
«kinds:scripts»
)

var sources = map[*redis.Script]string{}

func newScript(source string) *redis.Script {
	script := redis.NewScript(source)
	sources[script] = source
	return script
}

«include:_go/core»

// WithLock runs fn holding the lock (Acquire's options), then releases it, even on panic: fn's error, else the release's.
func WithLock(ctx context.Context, client Client, key string, ttl time.Duration, fn func(*Lease) error, opts ...Option) (err error) {
	lease, err := Acquire(ctx, client, key, ttl, opts...)
	if err != nil {
		return err
	}
	defer func() { // released even when ctx is cancelled, so the next holder need not wait out the lease
		if _, released := lease.Release(context.WithoutCancel(ctx)); err == nil {
			err = released
		}
	}()
	return fn(lease)
}

// ReleaseLock deletes key while it holds token (compare-and-delete): false when it held another or none.
func ReleaseLock(ctx context.Context, client Client, key, token string) (bool, error) {
	return newLease(client, plainKind, key, token, 0).Release(ctx)
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): false when it held another or none.
func ExtendLock(ctx context.Context, client Client, key, token string, ttl time.Duration) (bool, error) {
	return newLease(client, plainKind, key, token, 0).Extend(ctx, ttl)
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
	number, ok := reply.(int64)
	if err == nil && !ok {
		err = fmt.Errorf("locksmith: the script replied %#v, not an integer", reply)
	}
	return number, err
}

// leaseLeft is key's PTTL in ms; -1 (the retry bound) when it fails: the next try says why.
func leaseLeft(ctx context.Context, client Client, key string) int64 {
	if pttl, err := client.PTTL(ctx, key); err == nil {
		return pttl
	}
	return -1
}
«kinds:code»
