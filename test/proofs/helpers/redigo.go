// Proof program for the generated redigo helper (package locksmithproof/locksmith). Usage:
//
//	proof <redis-url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for
//	waiting and the lock kinds (as test/proofs/helpers/kinds.js): woken, reentrant, rw-reader,
//	rw-writer, semaphore, hold, take; and the modes of the helper's parts from parts.go (go-kinds.go
//	and go-parts.go, copied beside it when the helper carries them).
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

// client is what the helper's parts' modes (go-parts.go, built as parts.go) take.
type client = *redis.Pool

// parts are those modes: mode -> run(arg).
var parts = map[string]func(ctx context.Context, pool client, arg string) error{}

// get reads a string key for those modes ("" when it is missing).
func get(_ context.Context, pool client, key string) (string, error) {
	value, err := redis.String(do(pool, "GET", key))
	if err == redis.ErrNil {
		return "", nil
	}
	return value, err
}

func do(pool *redis.Pool, command string, args ...interface{}) (interface{}, error) {
	conn := pool.Get()
	defer conn.Close()
	return conn.Do(command, args...)
}

func counterRound(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 30*time.Second, locksmith.WaitFor(time.Minute))
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
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 1500*time.Millisecond, locksmith.Renew())
	if err != nil {
		return err
	}
	for i := 0; i < 50; i++ {
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
	time.Sleep(1500 * time.Millisecond)
	if pttl, err := redis.Int(do(pool, "PTTL", "proof:lock")); err != nil || pttl != -1 {
		return fmt.Errorf("still renewing after release: PTTL %d, %v", pttl, err)
	}
	_, err = do(pool, "DEL", "proof:lock")
	fmt.Println("renewed")
	return err
}

func steal(ctx context.Context, pool *redis.Pool) error {
	lease, err := locksmith.Acquire(ctx, pool, "proof:lock", 900*time.Millisecond, locksmith.Renew())
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

// takers take a kind on proof:lock: the plain lock here, the other kinds from kinds.go (go-kinds.go,
// copied next to this file when the helper carries them).
var takers = map[string]func(context.Context, *redis.Pool, time.Duration, ...locksmith.Option) (*locksmith.Lease, error){
	"lock": func(ctx context.Context, pool *redis.Pool, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
		return locksmith.Acquire(ctx, pool, "proof:lock", ttl, opts...)
	},
}

// rounds are the modes that run a number of rounds; kinds.go adds the lock kinds' modes.
var rounds = map[string]func(context.Context, *redis.Pool) error{"counter": counterRound, "fence": fenceRound}

func acquireKind(ctx context.Context, pool *redis.Pool, kind string, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
	if take, ok := takers[kind]; ok {
		return take(ctx, pool, ttl, opts...)
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

// set writes a value of the proof; hget reads a hash field as a number (0 when unset).
func set(pool *redis.Pool, key string, value interface{}) {
	do(pool, "SET", key, value)
}

func hget(pool *redis.Pool, key, field string) int {
	value, _ := redis.Int(do(pool, "HGET", key, field))
	return value
}

// increment adds delta to a counter of the proof and returns the new value.
func increment(pool *redis.Pool, key string, delta int) int {
	value, _ := redis.Int(do(pool, "INCRBY", key, delta))
	return value
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
	count, arg := 1, ""
	if len(os.Args) > 3 {
		arg = os.Args[3]
		count, _ = strconv.Atoi(arg)
	}
	pool := &redis.Pool{MaxIdle: 4, Dial: func() (redis.Conn, error) { return redis.DialURL(url) }}
	defer pool.Close()
	ctx := context.Background()
	var err error
	switch mode {
	case "counter", "fence", "reentrant", "rw-reader", "rw-writer", "semaphore":
		round, ok := rounds[mode]
		if !ok {
			err = fmt.Errorf("mode %s needs the helper's lock kinds", mode)
		}
		for i := 0; i < count && err == nil; i++ {
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
		if part, ok := parts[mode]; ok {
			err = part(ctx, pool, arg)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
