// Proof program for the generated redigo helper (package locksmithproof/locksmith). Usage:
//
//	proof <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for
//	waiting and the lock kinds (as test/proofs/helpers/kinds.js): woken, reentrant, rw-reader,
//	rw-writer, semaphore, hold, take.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"

	"locksmithproof/locksmith"
)

func do(pool *redis.Pool, command string, args ...interface{}) (interface{}, error) {
	conn := pool.Get()
	defer conn.Close()
	return conn.Do(command, args...)
}

func counterRound(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	if occupancy, err := redis.Int(do(pool, "INCR", "proof:occupancy")); err != nil || occupancy != 1 {
		return fmt.Errorf("two holders at once (%d, %v)", occupancy, err)
	}
	value, err := redis.Int(do(pool, "GET", "proof:counter"))
	if err != nil && err != redis.ErrNil {
		return err
	}
	if _, err := do(pool, "SET", "proof:counter", value+1); err != nil {
		return err
	}
	// The next script call of either process takes the NOSCRIPT path.
	if _, err := do(pool, "SCRIPT", "FLUSH"); err != nil {
		return err
	}
	if _, err := do(pool, "DECR", "proof:occupancy"); err != nil {
		return err
	}
	if held, err := lease.Release(ctx); err != nil || !held {
		return fmt.Errorf("release: %v, %v", held, err)
	}
	return nil
}

func renew(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 300*time.Millisecond, locksmith.Renew())
	if err != nil {
		return err
	}
	for i := 0; i < 10; i++ {
		time.Sleep(100 * time.Millisecond)
		if holder, err := redis.String(do(pool, "GET", "proof:lock")); err != nil || holder != lease.Token {
			return fmt.Errorf("lease lost while renewing: %q, %v", holder, err)
		}
	}
	if lease.Err() != nil {
		return fmt.Errorf("renewal reported a loss: %v", lease.Err())
	}
	if held, err := lease.Release(ctx); err != nil || !held {
		return fmt.Errorf("release found the lease gone: %v", err)
	}
	// No TTL: a renewal after release would add one.
	if _, err := do(pool, "SET", "proof:lock", lease.Token); err != nil {
		return err
	}
	time.Sleep(900 * time.Millisecond)
	if pttl, err := redis.Int(do(pool, "PTTL", "proof:lock")); err != nil || pttl != -1 {
		return fmt.Errorf("still renewing after release: PTTL %d, %v", pttl, err)
	}
	_, err = do(pool, "DEL", "proof:lock")
	fmt.Println("renewed")
	return err
}

func steal(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 300*time.Millisecond, locksmith.Renew())
	if err != nil {
		return err
	}
	fmt.Println("held")
	select {
	case <-lease.Lost():
	case <-time.After(5 * time.Second):
		return errors.New("no loss reported within 5 s")
	}
	at := time.Now().UnixMilli()
	if !errors.Is(lease.Err(), locksmith.ErrLeaseLost) {
		return fmt.Errorf("lost for %v", lease.Err())
	}
	if held, _ := lease.Release(ctx); held {
		return errors.New("released a stolen lock")
	}
	fmt.Printf("lost %d\n", at)
	return nil
}

func fenceRound(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 5*time.Second,
		locksmith.WaitFor(time.Minute), locksmith.Fence("proof:fence"))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	time.Sleep(5 * time.Millisecond)
	_, err = do(pool, "RPUSH", "proof:tokens", lease.Fence)
	return err
}

func busy(ctx context.Context, pool *redis.Pool) error {
	started := time.Now()
	_, err := locksmith.Acquire(ctx, pool, "proof:lock", 5*time.Second, locksmith.WaitFor(500*time.Millisecond))
	if !errors.Is(err, locksmith.ErrBusy) {
		return fmt.Errorf("acquired a lock another owner holds, or failed otherwise: %v", err)
	}
	fmt.Printf("busy %d %v\n", time.Since(started).Milliseconds(), err)
	return nil
}

// acquireKind takes kind on proof:lock.
func acquireKind(ctx context.Context, pool *redis.Pool, kind string, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
	switch kind {
	case "lock":
		return locksmith.Acquire(ctx, pool, "proof:lock", ttl, opts...)
	case "reentrant":
		return locksmith.Acquire(ctx, pool, "proof:lock", ttl, append(opts, locksmith.Reentrant("proof"))...)
	case "read":
		return locksmith.AcquireRead(ctx, pool, "proof:lock", ttl, opts...)
	case "write":
		return locksmith.AcquireWrite(ctx, pool, "proof:lock", ttl, opts...)
	case "semaphore":
		return locksmith.AcquireSemaphore(ctx, pool, "proof:lock", 1, ttl, opts...)
	}
	return nil, fmt.Errorf("no kind %s", kind)
}

func woken(ctx context.Context, pool *redis.Pool, kind string) error {
	lease, err := acquireKind(ctx, pool, kind, 5*time.Second, locksmith.WaitFor(time.Minute), locksmith.RetryEvery(30*time.Second))
	if err != nil {
		return err
	}
	fmt.Printf("held %d\n", time.Now().UnixMilli())
	_, err = lease.Release(ctx)
	return err
}

// count reads a counter of the proof (0 when unset).
func count(pool *redis.Pool, key string) (int, error) {
	value, err := redis.Int(do(pool, "GET", key))
	if err == redis.ErrNil {
		return 0, nil
	}
	return value, err
}

// increment adds delta to a counter of the proof and returns the new value.
func increment(pool *redis.Pool, key string, delta int) int {
	value, _ := redis.Int(do(pool, "INCRBY", key, delta))
	return value
}

func reentrantRound(ctx context.Context, pool *redis.Pool) error {
	// An owner per process: the nested Acquire re-enters, another process's waits.
	owner := locksmith.Reentrant(fmt.Sprint("proof-", os.Getpid()))
	outer, err := locksmith.Acquire(ctx, pool, "proof:lock", 5*time.Second, owner, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	if increment(pool, "proof:occupancy", 1) != 1 {
		return errors.New("two holders at once")
	}
	inner, err := locksmith.Acquire(ctx, pool, "proof:lock", 5*time.Second, owner)
	if err != nil {
		return err
	}
	if holds, _ := redis.Int(do(pool, "HGET", "proof:lock", outer.Token)); inner.Token != outer.Token || holds != 2 {
		return errors.New("the nested take did not re-enter")
	}
	value, err := count(pool, "proof:counter")
	if err != nil {
		return err
	}
	do(pool, "SET", "proof:counter", value+1)
	if held, err := inner.Release(ctx); err != nil || !held {
		return fmt.Errorf("inner release: %v, %v", held, err)
	}
	if holds, _ := redis.Int(do(pool, "HGET", "proof:lock", outer.Token)); holds != 1 {
		return errors.New("hold count is not back to 1")
	}
	increment(pool, "proof:occupancy", -1)
	_, err = outer.Release(ctx)
	return err
}

func readerRound(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.AcquireRead(ctx, pool, "proof:rw", 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	if increment(pool, "proof:readers", 1) > 1 {
		do(pool, "SET", "proof:overlap", 1)
	}
	if writers, err := count(pool, "proof:writers"); err != nil || writers != 0 {
		return fmt.Errorf("read while a writer held the lock (%d, %v)", writers, err)
	}
	time.Sleep(10 * time.Millisecond)
	increment(pool, "proof:readers", -1)
	return nil
}

func writerRound(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.AcquireWrite(ctx, pool, "proof:rw", 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	if increment(pool, "proof:writers", 1) != 1 {
		return errors.New("two writers at once")
	}
	if readers, err := count(pool, "proof:readers"); err != nil || readers != 0 {
		return fmt.Errorf("wrote while a reader held the lock (%d, %v)", readers, err)
	}
	value, err := count(pool, "proof:counter")
	if err != nil {
		return err
	}
	do(pool, "SET", "proof:counter", value+1)
	increment(pool, "proof:writers", -1)
	return nil
}

func semaphoreRound(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.AcquireSemaphore(ctx, pool, "proof:sem", 2, 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	holders := increment(pool, "proof:holders", 1)
	if holders > 2 {
		return fmt.Errorf("%d holders of 2 permits", holders)
	}
	if holders == 2 {
		do(pool, "SET", "proof:full", 1)
	}
	time.Sleep(5 * time.Millisecond)
	increment(pool, "proof:holders", -1)
	return nil
}

func hold(ctx context.Context, pool *redis.Pool, kind string) error {
	if _, err := acquireKind(ctx, pool, kind, holdTTL(), locksmith.WaitFor(0)); err != nil {
		return err
	}
	fmt.Println("held")
	time.Sleep(time.Minute)
	return nil
}

// holdTTL is the lease of a holder that the test kills: $PROOF_HOLD_MS, 1 s by default.
func holdTTL() time.Duration {
	if ms, err := strconv.Atoi(os.Getenv("PROOF_HOLD_MS")); err == nil {
		return time.Duration(ms) * time.Millisecond
	}
	return time.Second
}

func takeKind(ctx context.Context, pool *redis.Pool, kind string) error {
	lease, err := acquireKind(ctx, pool, kind, 5*time.Second)
	if err != nil {
		return err
	}
	fmt.Printf("took %d\n", time.Now().UnixMilli())
	_, err = lease.Release(ctx)
	return err
}

func main() {
	url, mode := os.Args[1], os.Args[2]
	rounds, arg := 1, ""
	if len(os.Args) > 3 {
		arg = os.Args[3]
		rounds, _ = strconv.Atoi(arg)
	}
	pool := &redis.Pool{MaxIdle: 4, Dial: func() (redis.Conn, error) { return redis.DialURL(url) }}
	defer pool.Close()
	ctx := context.Background()
	var err error
	switch mode {
	case "counter", "fence", "reentrant", "rw-reader", "rw-writer", "semaphore":
		round := map[string]func(context.Context, *redis.Pool) error{
			"counter": counterRound, "fence": fenceRound, "reentrant": reentrantRound,
			"rw-reader": readerRound, "rw-writer": writerRound, "semaphore": semaphoreRound,
		}[mode]
		for i := 0; i < rounds && err == nil; i++ {
			err = round(ctx, pool)
		}
	case "woken":
		err = woken(ctx, pool, arg)
	case "hold":
		err = hold(ctx, pool, arg)
	case "take":
		err = takeKind(ctx, pool, arg)
	case "renew":
		err = renew(ctx, pool)
	case "steal":
		err = steal(ctx, pool)
	case "busy":
		err = busy(ctx, pool)
	default:
		err = fmt.Errorf("unknown mode %s", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
