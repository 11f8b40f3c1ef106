// GLIDE for Go's own refusals of WaitForReplicas (see go-parts.go): a Client that is neither
// *glide.Client nor *glide.ClusterClient, whose batches the helper cannot send.
package main

import (
	"context"
	"time"

	"locksmithproof/locksmith"
)

// wrapped is a user's own Client around a GLIDE client.
type wrapped struct{ client }

func init() {
	refusals = append(refusals, func(ctx context.Context, c client) error {
		_, err := locksmith.Acquire(ctx, wrapped{c}, "proof:lock", time.Second, locksmith.WaitForReplicas(locksmith.ReplicaWait{}))
		return err
	})
}
