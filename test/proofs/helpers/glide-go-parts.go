// GLIDE for Go's own modes of the parts (see go-parts.go): a Client that is neither *glide.Client
// nor *glide.ClusterClient, whose batches the helper cannot send, is refused; NOSCRIPT in a pair;
// a holder that stops itself (SIGSTOP) past its lease. And for the multi modes (go-multi.go): the
// counters the other Go programs have, and transfers under WithMultiLock.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
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
	holdMulti = func(ctx context.Context, c client, locks []string, move func() error) error {
		run := func(*locksmith.Lease) error { return move() }
		// A *glide.Client's waiters poll: a short retry bound keeps the locks in use.
		return locksmith.WithMultiLock(ctx, c, locks, 5*time.Second, run, locksmith.WaitFor(time.Minute), locksmith.RetryEvery(20*time.Millisecond))
	}
}

// count reads a counter of the proof (0 when unset).
func count(c client, key string) (int, error) {
	value, err := c.Get(context.Background(), key)
	if err != nil || value.IsNil() {
		return 0, err
	}
	return strconv.Atoi(value.Value())
}

// increment adds delta to a counter of the proof and returns the new value.
func increment(c client, key string, delta int) int {
	value, _ := c.IncrBy(context.Background(), key, int64(delta))
	return int(value)
}

// set writes a value of the proof.
func set(c client, key string, value interface{}) {
	c.Set(context.Background(), key, fmt.Sprint(value))
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
	if err := stopSelf(); err != nil {
		return err
	}
	return writes(ctx, lease, "late", "late")
}

// stopSelf returns only once the process has been stopped and continued. A SIGSTOP sent to the
// process (kill) is taken by its main thread: this goroutine's thread, another one, ran on until
// that thread was scheduled (up to ms under load), long enough to send the late writes while the
// lease was still held. Sent to the calling thread (tgkill), it stops that thread before the call
// returns.
func stopSelf() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return syscall.Tgkill(os.Getpid(), syscall.Gettid(), syscall.SIGSTOP)
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
