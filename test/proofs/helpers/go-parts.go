// The modes of the go-redis and redigo helpers' parts (test/helpers-go-parts-proof.test.ts),
// built beside either proof program as parts.go: `client` is that program's client type.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"locksmithproof/locksmith"
)

func init() {
	parts["replica-shortfall"] = replicaShortfall
	parts["replica-kept"] = replicaKept
	parts["replica-acked"] = replicaAcked
	parts["replica-refused"] = replicaRefused
	parts["replica-cut"] = replicaCut
	parts["replica-fsync"] = replicaFsync
	parts["fenced-paused"] = fencedPaused
	parts["fenced-next"] = fencedNext
	parts["fenced-refused"] = fencedRefused
}

// The replica modes' keys: $PROOF_LOCK and $PROOF_FENCE (in a Cluster, under one {hash tag}).
var (
	partLock  = keyFrom("PROOF_LOCK", "proof:lock")
	partFence = keyFrom("PROOF_FENCE", "proof:fence")
)

func keyFrom(variable, fallback string) string {
	if key := os.Getenv(variable); key != "" {
		return key
	}
	return fallback
}

// refusals are more bad uses of WaitForReplicas, each refused by the helper with a message:
// the client's own (another client type) and the lock kinds' (kinds.go). writeRefusals are bad
// uses of the fenced writes, from kinds.go.
var refusals, writeRefusals []func(context.Context, client) error

// acquireHow: "try" tries once (the acquire script), "wait" waits in line (acquire_queued).
func acquireHow(how string) locksmith.Option {
	if how == "wait" {
		return locksmith.WaitFor(10 * time.Second)
	}
	return locksmith.WaitFor(0)
}

// replicaShortfall: on a master without replicas, an acquire that waits 50 ms for one.
func replicaShortfall(ctx context.Context, c client, how string) error {
	wait := locksmith.WaitForReplicas(locksmith.ReplicaWait{Replicas: 1, Timeout: 50 * time.Millisecond})
	lease, err := locksmith.Acquire(ctx, c, partLock, 10*time.Second, acquireHow(how), wait)
	var shortfall *locksmith.ReplicaShortfallError
	if !errors.As(err, &shortfall) || !errors.Is(err, locksmith.ErrReplicaShortfall) || lease != nil {
		return fmt.Errorf("no ReplicaShortfallError: %v, %v", lease, err)
	}
	s := shortfall.Shortfall
	fmt.Printf("shortfall %s %s %d of %d in %v, released %v\n%v\n", s.Lock, s.Reason, s.Acknowledged, s.Required, s.Timeout, shortfall.Released, err)
	return nil
}

// replicaKept: the same with OnShortfall, which keeps the lock.
func replicaKept(ctx context.Context, c client, _ string) error {
	var seen []locksmith.ReplicaShortfall
	keep := func(shortfall locksmith.ReplicaShortfall) { seen = append(seen, shortfall) }
	wait := locksmith.WaitForReplicas(locksmith.ReplicaWait{Timeout: 50 * time.Millisecond, OnShortfall: keep})
	lease, err := locksmith.Acquire(ctx, c, "proof:lock", 10*time.Second, locksmith.WaitFor(0), wait)
	if err != nil || len(seen) != 1 {
		return fmt.Errorf("not kept with one shortfall: %v, %v", seen, err)
	}
	fmt.Printf("kept %s %s %d by %s\n%v\n", seen[0].Lock, seen[0].Reason, seen[0].Acknowledged, lease.Token, seen[0])
	return nil
}

// replicaAcked: with a replica, an acquire with a fencing token that waits up to 2.5 s for it
// (within go-redis's 3 s ReadTimeout), printed with how long it took.
func replicaAcked(ctx context.Context, c client, how string) error {
	started := time.Now()
	wait := locksmith.WaitForReplicas(locksmith.ReplicaWait{Timeout: 2500 * time.Millisecond})
	lease, err := locksmith.Acquire(ctx, c, partLock, 10*time.Second, acquireHow(how), locksmith.Fence(partFence), wait)
	if err != nil {
		return err
	}
	fmt.Printf("acked %s %d in %d ms\n", lease.Token, lease.Fence, time.Since(started).Milliseconds())
	return nil
}

// replicaFsync: an acquire that waits 50 ms for its fsync on the master and 1 replica
// (WAITAOF), with an OnShortfall that a setting the server cannot honour does not call.
func replicaFsync(ctx context.Context, c client, _ string) error {
	called, seen := false, locksmith.ReplicaShortfall{}
	keep := func(shortfall locksmith.ReplicaShortfall) { called, seen = true, shortfall }
	wait := locksmith.WaitForReplicas(locksmith.ReplicaWait{Fsync: true, Timeout: 50 * time.Millisecond, OnShortfall: keep})
	lease, err := locksmith.Acquire(ctx, c, "proof:lock", 10*time.Second, locksmith.WaitFor(0), wait)
	var shortfall *locksmith.ReplicaShortfallError
	switch {
	case errors.As(err, &shortfall):
		s := shortfall.Shortfall
		fmt.Printf("fsync %s %d local %v, released %v, called %v\n%v\n", s.Reason, s.Acknowledged, s.FsyncedLocally, shortfall.Released, called, err)
	case err == nil:
		fmt.Printf("fsync kept by %s, called %v: %s %d local %v\n%v\n", lease.Token, called, seen.Reason, seen.Acknowledged, seen.FsyncedLocally, seen)
	default:
		return err
	}
	return nil
}

// replicaCut: an acquire whose connection the test cuts while it waits up to 5 s for the replica.
func replicaCut(ctx context.Context, c client, _ string) error {
	wait := locksmith.WaitForReplicas(locksmith.ReplicaWait{Timeout: 5 * time.Second})
	lease, err := locksmith.Acquire(ctx, c, "proof:lock", 20*time.Second, locksmith.WaitFor(0), wait)
	var shortfall *locksmith.ReplicaShortfallError
	switch {
	case err == nil:
		fmt.Printf("acked %s\n", lease.Token)
	case errors.As(err, &shortfall):
		fmt.Printf("shortfall %s, released %v\n%v\n", shortfall.Shortfall.Reason, shortfall.Released, err)
	default:
		return err
	}
	return nil
}

// writes are a lease's SetFenced on proof:fenced and SetIfHeld on proof:data with value, printed
// as "<what> guarded <written> fenced <written>".
func writes(ctx context.Context, lease *locksmith.Lease, what, value string) error {
	fenced, err := lease.SetFenced(ctx, "proof:fenced", value)
	if err != nil {
		return err
	}
	guarded, err := lease.SetIfHeld(ctx, "proof:data", value)
	if err != nil {
		return err
	}
	fmt.Printf("%s guarded %v fenced %v\n", what, guarded, fenced)
	return nil
}

// fencedPaused is Kleppmann's paused holder: it writes while it holds a 300 ms lease, is paused
// past it (its guarded write refused once expired), and writes again once the next holder
// (fencing token 2) has taken the lock and written.
func fencedPaused(ctx context.Context, c client, _ string) error {
	lease, err := locksmith.Acquire(ctx, c, "proof:lock", 300*time.Millisecond, locksmith.Fence("proof:fence"))
	if err != nil {
		return err
	}
	if err := writes(ctx, lease, fmt.Sprint("held ", lease.Fence), "first"); err != nil {
		return err
	}
	time.Sleep(600 * time.Millisecond)
	guarded, err := lease.SetIfHeld(ctx, "proof:data", "expired")
	if err != nil {
		return err
	}
	fmt.Printf("expired guarded %v\n", guarded)
	// Paused on: until the next holder has written (its SetIfHeld comes last).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err := get(ctx, c, "proof:data"); err != nil || data == "next" || time.Now().After(deadline) {
			break
		}
	}
	return writes(ctx, lease, "late", "late")
}

// fencedNext takes the lock after the paused holder and writes, keeping it.
func fencedNext(ctx context.Context, c client, _ string) error {
	lease, err := locksmith.Acquire(ctx, c, "proof:lock", 20*time.Second, locksmith.Fence("proof:fence"))
	if err != nil {
		return err
	}
	return writes(ctx, lease, fmt.Sprint("next ", lease.Fence), "next")
}

// fencedRefused: SetFenced without a fencing token (and writeRefusals), each refused before
// anything is sent.
func fencedRefused(ctx context.Context, c client, _ string) error {
	withoutFence := func(ctx context.Context, c client) error {
		lease, err := locksmith.Acquire(ctx, c, "proof:lock", 10*time.Second)
		if err != nil {
			return err
		}
		defer lease.Release(ctx)
		_, err = lease.SetFenced(ctx, "proof:fenced", "value")
		return err
	}
	return printRefused(ctx, c, "fenced write", append([]func(context.Context, client) error{withoutFence}, writeRefusals...))
}

// replicaRefused: bad settings, each refused (printed) before anything is sent.
func replicaRefused(ctx context.Context, c client, _ string) error {
	bad := []struct {
		ttl  time.Duration
		wait locksmith.ReplicaWait
	}{
		{time.Second, locksmith.ReplicaWait{Replicas: -1}},
		{time.Second, locksmith.ReplicaWait{Timeout: 1500 * time.Microsecond}},
		{time.Second, locksmith.ReplicaWait{Timeout: -time.Millisecond}},
		{time.Second, locksmith.ReplicaWait{Timeout: time.Second}},
		{0, locksmith.ReplicaWait{}},
	}
	cases := []func(context.Context, client) error{}
	for _, b := range bad {
		b := b
		cases = append(cases, func(ctx context.Context, c client) error {
			_, _, err := locksmith.TryAcquire(ctx, c, "proof:lock", b.ttl, locksmith.WaitForReplicas(b.wait))
			return err
		})
	}
	return printRefused(ctx, c, "WaitForReplicas", append(cases, refusals...))
}

// printRefused runs each bad use of what, printing its error as "refused <error>": one that is
// not refused fails the mode.
func printRefused(ctx context.Context, c client, what string, cases []func(context.Context, client) error) error {
	for _, refused := range cases {
		err := refused(ctx, c)
		if err == nil {
			return fmt.Errorf("a bad %s was not refused", what)
		}
		fmt.Printf("refused %v\n", err)
	}
	return nil
}
