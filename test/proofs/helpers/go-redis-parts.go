// go-redis's own refusals (see go-parts.go): of WaitForReplicas, a client type whose pipelines
// would not go on one connection to the lock's master; of AcquireMulti, a Ring, whose shard of a
// call is its first key's (its one shard's address is nowhere: the Ring never reaches a server).
package main

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"locksmithproof/locksmith"
)

func init() {
	refusals = append(refusals, func(ctx context.Context, rdb client) error {
		_, err := locksmith.Acquire(ctx, rdb.Pipeline(), "proof:lock", time.Second, locksmith.WaitForReplicas(locksmith.ReplicaWait{}))
		return err
	})
	multiRefusals = append(multiRefusals, func(ctx context.Context, _ client) error {
		ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"nowhere": "127.0.0.1:1"}})
		defer ring.Close()
		_, err := locksmith.AcquireMulti(ctx, ring, []string{"lock:a", "lock:b"}, time.Second)
		return err
	})
}
