«header»

// Package locksmith holds Redis locks with go-redis v9:
//
//	lease, err := locksmith.Acquire(ctx, rdb, "lock:{order:42}", 10*time.Second)
//	if err != nil {
//		return err
//	}
//	defer lease.Release(ctx)
//
// A waiter polls: after a busy try it sleeps until the holder's lease ends (PTTL), at most a jittered retry bound.
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

	"github.com/redis/go-redis/v9"
)

«set:client»redis.Scripter
var (
	acquireScript = redis.NewScript(`«lua:acquire»`)
	extendScript = redis.NewScript(`«lua:extend»`)
	releaseScript = redis.NewScript(`«lua:release»`)
«kinds:scripts»
)

«include:_go/core»

// ReleaseLock deletes key while it holds token (compare-and-delete): false when it held another or none.
func ReleaseLock(ctx context.Context, client redis.Scripter, key, token string) (bool, error) {
	return newLease(client, plainKind, key, token, 0).Release(ctx)
}

// ExtendLock sets key's lease to ttl while it holds token (compare-and-extend): false when it held another or none.
func ExtendLock(ctx context.Context, client redis.Scripter, key, token string, ttl time.Duration) (bool, error) {
	return newLease(client, plainKind, key, token, 0).Extend(ctx, ttl)
}

func run(ctx context.Context, client redis.Scripter, script *redis.Script, keys []string, args ...interface{}) (int64, error) {
	return script.Run(ctx, client, keys, args...).Int64()
}

// leaseLeft is key's PTTL in ms; -1 (the retry bound) when it fails (the next try says why) or
// client is no redis.UniversalClient.
func leaseLeft(ctx context.Context, client redis.Scripter, key string) int64 {
	if c, ok := client.(redis.UniversalClient); ok {
		if pttl, err := c.Do(ctx, "PTTL", key).Int64(); err == nil {
			return pttl
		}
	}
	return -1
}
«kinds:code»
