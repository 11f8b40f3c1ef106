«header»

// Package locksmith holds Redis locks with redigo: lease, err := locksmith.Acquire(ctx, pool,
// "lock:{order:42}", 10*time.Second), then defer lease.Release(ctx). A waiter polls: after a busy
// try it sleeps until the holder's lease ends (PTTL), at most a jittered retry bound.
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
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

«set:client»Pool
// A key count of -1: the count comes first among the arguments.
var (
	acquireScript = redis.NewScript(-1, `«lua:acquire»`)
	extendScript = redis.NewScript(-1, `«lua:extend»`)
	releaseScript = redis.NewScript(-1, `«lua:release»`)
«kinds:scripts»
)

// Pool is a *redis.Pool: a redigo Conn is not safe for concurrent use, so each call takes its own.
type Pool interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

«include:_go/core»

// ReleaseLock deletes key while it holds token (compare-and-delete): false when it held another or none.
func ReleaseLock(conn redis.Conn, key, token string) (bool, error) {
	return redis.Bool(releaseScript.Do(conn, 1, key, token))
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): false when it held another or none.
func ExtendLock(conn redis.Conn, key, token string, ttl time.Duration) (bool, error) {
	if _, _, err := configure(ttl, nil); err != nil {
		return false, err
	}
	return redis.Bool(extendScript.Do(conn, 1, key, token, ttl.Milliseconds()))
}

func do(ctx context.Context, pool Pool, script *redis.Script, keys []string, args ...interface{}) (interface{}, error) {
	conn, err := pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return script.Do(conn, redis.Args{len(keys)}.AddFlat(keys).Add(args...)...)
}

func run(ctx context.Context, pool Pool, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	return redis.Int64(do(ctx, pool, script, keys, args...))
}

// leaseLeft is key's PTTL in ms; -1 (the retry bound) when it fails: the next try says why.
func leaseLeft(ctx context.Context, pool Pool, key string) int64 {
	pttl := int64(-1)
	if conn, err := pool.GetContext(ctx); err == nil {
		if left, err := redis.Int64(conn.Do("PTTL", key)); err == nil {
			pttl = left
		}
		conn.Close()
	}
	return pttl
}
«kinds:code»
