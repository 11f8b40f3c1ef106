// GLIDE for Go's own modes of the parts (see go-parts.go): a Client that is neither *glide.Client
// nor *glide.ClusterClient, whose batches the helper cannot send, is refused; NOSCRIPT in a pair;
// a holder that stops itself (SIGSTOP) past its lease.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
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
	parts["replica-noscript"] = replicaNoScript
	parts["fenced-stopped"] = fencedStopped
}

// fencedStopped writes while it holds a 300 ms lease (fencing token 1), then stops itself
// (SIGSTOP) until the test continues it (SIGCONT) once the next holder has written, and writes again.
func fencedStopped(ctx context.Context, c client, _ string) error {
	lease, err := locksmith.Acquire(ctx, c, "proof:lock", 300*time.Millisecond, locksmith.Fence("proof:fence"))
	if err != nil {
		return err
	}
	if err := writes(ctx, lease, fmt.Sprint("held ", lease.Fence), "first"); err != nil {
		return err
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
		return err
	}
	return writes(ctx, lease, "late", "late")
}

// replicaNoScript: on a master without replicas, two acquires kept by OnShortfall, the script cache
// flushed between them: the second pair's EVALSHA is refused with NOSCRIPT and the pair sent
// again with EVAL.
func replicaNoScript(ctx context.Context, c client, _ string) error {
	for round := 1; round <= 2; round++ {
		called := 0
		keep := func(locksmith.ReplicaShortfall) { called++ }
		wait := locksmith.WaitForReplicas(locksmith.ReplicaWait{Timeout: 50 * time.Millisecond, OnShortfall: keep})
		lease, err := locksmith.Acquire(ctx, c, "proof:lock", 10*time.Second, locksmith.WaitFor(0), wait)
		if err != nil || called != 1 {
			return fmt.Errorf("round %d not kept with one shortfall: %d, %v", round, called, err)
		}
		if _, err := lease.Release(ctx); err != nil {
			return err
		}
		fmt.Printf("round %d kept and released\n", round)
		if _, err := c.ScriptFlush(ctx); err != nil {
			return err
		}
	}
	return nil
}
