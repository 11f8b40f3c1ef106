// go-redis's own refusals of WaitForReplicas (see go-parts.go): a client type whose pipelines
// would not go on one connection to the lock's master.
package main

import (
	"context"
	"time"

	"locksmithproof/locksmith"
)

func init() {
	refusals = append(refusals, func(ctx context.Context, rdb client) error {
		_, err := locksmith.Acquire(ctx, rdb.Pipeline(), "proof:lock", time.Second, locksmith.WaitForReplicas(locksmith.ReplicaWait{}))
		return err
	})
}
