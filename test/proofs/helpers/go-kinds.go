// The lock kinds' modes of the go-redis and redigo helper proofs (see go-redis.go and redigo.go),
// built beside either as kinds.go when the helper carries them: `client` is that program's client type.
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
	takers["reentrant"] = func(ctx context.Context, c client, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
		return locksmith.Acquire(ctx, c, "proof:lock", ttl, append(opts, locksmith.Reentrant("proof"))...)
	}
	takers["read"] = func(ctx context.Context, c client, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
		return locksmith.AcquireRead(ctx, c, "proof:lock", ttl, opts...)
	}
	takers["write"] = func(ctx context.Context, c client, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
		return locksmith.AcquireWrite(ctx, c, "proof:lock", ttl, opts...)
	}
	takers["semaphore"] = func(ctx context.Context, c client, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
		return locksmith.AcquireSemaphore(ctx, c, "proof:lock", 1, ttl, opts...)
	}
	rounds["reentrant"] = reentrantRound
	rounds["rw-reader"] = readerRound
	rounds["rw-writer"] = writerRound
	rounds["semaphore"] = semaphoreRound
	// SetIfHeld takes a plain lock's lease only (go-parts.go).
	writeRefusals = append(writeRefusals, func(ctx context.Context, c client) error {
		lease, err := locksmith.AcquireSemaphore(ctx, c, "proof:lock", 2, 10*time.Second)
		if err != nil {
			return err
		}
		defer lease.Release(ctx)
		_, err = lease.SetIfHeld(ctx, "proof:data", "value")
		return err
	})
	// The lock kinds refuse WaitForReplicas (go-parts.go), which only the plain lock has.
	replicas := locksmith.WaitForReplicas(locksmith.ReplicaWait{})
	refusals = append(refusals, func(ctx context.Context, c client) error {
		_, err := locksmith.Acquire(ctx, c, "proof:lock", time.Second, locksmith.Reentrant("proof"), replicas)
		return err
	}, func(ctx context.Context, c client) error {
		_, err := locksmith.AcquireSemaphore(ctx, c, "proof:lock", 2, time.Second, replicas)
		return err
	})
}

func reentrantRound(ctx context.Context, c client) error {
	// An owner per process: the nested Acquire re-enters, another process's waits.
	owner := locksmith.Reentrant(fmt.Sprint("proof-", os.Getpid()))
	outer, err := locksmith.Acquire(ctx, c, "proof:lock", 5*time.Second, owner, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	if increment(c, "proof:occupancy", 1) != 1 {
		return errors.New("two holders at once")
	}
	inner, err := locksmith.Acquire(ctx, c, "proof:lock", 5*time.Second, owner)
	if err != nil {
		return err
	}
	if holds := hget(c, "proof:lock", outer.Token); inner.Token != outer.Token || holds != 2 {
		return errors.New("the nested take did not re-enter")
	}
	value, err := count(c, "proof:counter")
	if err != nil {
		return err
	}
	set(c, "proof:counter", value+1)
	if held, err := inner.Release(ctx); err != nil || !held {
		return fmt.Errorf("inner release: %v, %v", held, err)
	}
	if holds := hget(c, "proof:lock", outer.Token); holds != 1 {
		return errors.New("hold count is not back to 1")
	}
	increment(c, "proof:occupancy", -1)
	_, err = outer.Release(ctx)
	return err
}

func readerRound(ctx context.Context, c client) error {
	lease, err := locksmith.AcquireRead(ctx, c, "proof:rw", 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	if increment(c, "proof:readers", 1) > 1 {
		set(c, "proof:overlap", 1)
	}
	if writers, err := count(c, "proof:writers"); err != nil || writers != 0 {
		return fmt.Errorf("read while a writer held the lock (%d, %v)", writers, err)
	}
	time.Sleep(10 * time.Millisecond)
	increment(c, "proof:readers", -1)
	return nil
}

func writerRound(ctx context.Context, c client) error {
	lease, err := locksmith.AcquireWrite(ctx, c, "proof:rw", 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	if increment(c, "proof:writers", 1) != 1 {
		return errors.New("two writers at once")
	}
	if readers, err := count(c, "proof:readers"); err != nil || readers != 0 {
		return fmt.Errorf("wrote while a reader held the lock (%d, %v)", readers, err)
	}
	value, err := count(c, "proof:counter")
	if err != nil {
		return err
	}
	set(c, "proof:counter", value+1)
	increment(c, "proof:writers", -1)
	return nil
}

func semaphoreRound(ctx context.Context, c client) error {
	lease, err := locksmith.AcquireSemaphore(ctx, c, "proof:sem", 2, 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	holders := increment(c, "proof:holders", 1)
	if holders > 2 {
		return fmt.Errorf("%d holders of 2 permits", holders)
	}
	if holders == 2 {
		set(c, "proof:full", 1)
	}
	time.Sleep(5 * time.Millisecond)
	increment(c, "proof:holders", -1)
	return nil
}
