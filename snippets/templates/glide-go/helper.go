«header»

// Package locksmith holds Redis and Valkey locks with Valkey GLIDE for Go: Acquire, then defer lease.Release(ctx).
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
«kinds:strings-import»
«include-once:_go/import-strings»
	"sync"
	"time"

«kinds:imports»
	"github.com/valkey-io/valkey-glide/go/v2/interfaces"
	redis "github.com/valkey-io/valkey-glide/go/v2/options" // Script, ScriptOptions; "options" is a type here
«kinds:imports-last»
)

«set:client»Client
// Client is what GLIDE's two clients share: pass a *glide.Client or a *glide.ClusterClient.
type Client = interfaces.BaseClientCommands

var (
	sources       = map[*redis.Script]string{} // each script's Lua, for invoke's EVAL
	acquireScript = newScript(`«lua:acquire»`)
	extendScript = newScript(`«lua:extend»`)
	releaseScript = newScript(`«lua:release»`)
«kinds:scripts»
)

func newScript(source string) *redis.Script {
	script := redis.NewScript(source)
	sources[script] = source
	return script
}

«include:_go/core»

// ReleaseLock deletes key while it holds token (compare-and-delete): false when it held another or none.
func ReleaseLock(ctx context.Context, client Client, key, token string) (bool, error) {
	return newLease(client, plainKind, key, token, 0).Release(ctx)
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): false when it held another or none.
func ExtendLock(ctx context.Context, client Client, key, token string, ttl time.Duration) (bool, error) {
	return newLease(client, plainKind, key, token, 0).Extend(ctx, ttl)
}

// invoke runs script with EVALSHA (GLIDE loads it on NOSCRIPT), and once with EVAL when a flush beat that load.
func invoke(ctx context.Context, client Client, script *redis.Script, keys []string, args []interface{}) (any, error) {
	values := make([]string, len(args))
	for i, arg := range args {
		values[i] = fmt.Sprint(arg)
	}
	reply, err := client.InvokeScriptWithOptions(ctx, *script, *redis.NewScriptOptions().WithKeys(keys).WithArgs(values))
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "noscript") {
		return reply, err
	}
	eval := append(append([]string{"EVAL", sources[script], fmt.Sprint(len(keys))}, keys...), values...)
	switch c := client.(type) {
	case interfaces.GlideClientCommands:
		return c.CustomCommand(ctx, eval)
	case interfaces.GlideClusterClientCommands:
		value, err := c.CustomCommand(ctx, eval)
		return value.SingleValue(), err
	}
	return reply, err
}

func run(ctx context.Context, client Client, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	reply, err := invoke(ctx, client, script, keys, args)
	if number, ok := reply.(int64); ok || err != nil {
		return number, err
	}
	return 0, fmt.Errorf("locksmith: the script replied %#v, not an integer", reply)
}

func leaseLeft(ctx context.Context, client Client, key string) int64 {
	if pttl, err := client.PTTL(ctx, key); err == nil {
		return pttl
	}
	return -1 // unknown: the retry bound (the next try says why)
}
«kinds:code»
