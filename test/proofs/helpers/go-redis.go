// Proof program for the generated go-redis v9 helper (package locksmithproof/locksmith). Usage:
//
//	proof <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for waiting
//	and the lock kinds (as test/proofs/helpers/kinds.js): woken, hold, take, and from kinds.go
//	reentrant, rw-reader, rw-writer, semaphore; and the modes of the helper's parts from parts.go
//	(go-kinds.go and go-parts.go, copied beside it when the helper carries them).
//
// <url> is a redis:// URL, or cluster://host:port,host:port for a Cluster. The lock and fence keys
// come from PROOF_LOCK and PROOF_FENCE (default proof:lock, proof:fence): in a Cluster they share
// a {hash tag}.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"locksmithproof/locksmith"
)

var (
	lockKey  = envOr("PROOF_LOCK", "proof:lock")
	fenceKey = envOr("PROOF_FENCE", "proof:fence")
)

// client is what the helper's parts' modes (go-parts.go, built as parts.go) take.
type client = redis.UniversalClient

// parts are those modes: mode -> run(arg).
var parts = map[string]func(ctx context.Context, rdb client, arg string) error{}

// get reads a string key for those modes ("" when it is missing).
func get(ctx context.Context, rdb client, key string) (string, error) {
	value, err := rdb.Get(ctx, key).Result()
	if err == redis.Nil {
		return "", nil
	}
	return value, err
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func connect(url string) (redis.UniversalClient, error) {
	if seeds, ok := strings.CutPrefix(url, "cluster://"); ok {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(seeds, ",")}), nil
	}
	options, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(options), nil
}

func counterRound(ctx context.Context, rdb redis.UniversalClient) error {
	lease, err := locksmith.Acquire(ctx, rdb, lockKey, 30*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	if occupancy, err := rdb.Incr(ctx, "proof:occupancy").Result(); err != nil || occupancy != 1 {
		return fmt.Errorf("two holders at once (%d, %v)", occupancy, err)
	}
	value, err := rdb.Get(ctx, "proof:counter").Int()
	if err != nil && err != redis.Nil {
		return err
	}
	if err := rdb.Set(ctx, "proof:counter", value+1, 0).Err(); err != nil {
		return err
	}
	// The next script call of every process takes the NOSCRIPT path.
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		return err
	}
	if err := rdb.Decr(ctx, "proof:occupancy").Err(); err != nil {
		return err
	}
	if held, err := lease.Release(ctx); err != nil || !held {
		return fmt.Errorf("release: %v, %v", held, err)
	}
	return nil
}

func renew(ctx context.Context, rdb redis.UniversalClient) error {
	lease, err := locksmith.Acquire(ctx, rdb, lockKey, 1500*time.Millisecond, locksmith.Renew())
	if err != nil {
		return err
	}
	for i := 0; i < 50; i++ {
		time.Sleep(100 * time.Millisecond)
		if holder, err := rdb.Get(ctx, lockKey).Result(); err != nil || holder != lease.Token {
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
	if err := rdb.Set(ctx, lockKey, lease.Token, 0).Err(); err != nil {
		return err
	}
	time.Sleep(1500 * time.Millisecond)
	if pttl, err := rdb.PTTL(ctx, lockKey).Result(); err != nil || pttl != -1 {
		return fmt.Errorf("still renewing after release: PTTL %v, %v", pttl, err)
	}
	fmt.Println("renewed")
	return rdb.Del(ctx, lockKey).Err()
}

func steal(ctx context.Context, rdb redis.UniversalClient) error {
	lease, err := locksmith.Acquire(ctx, rdb, lockKey, 900*time.Millisecond, locksmith.Renew())
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

func fenceRound(ctx context.Context, rdb redis.UniversalClient) error {
	lease, err := locksmith.Acquire(ctx, rdb, lockKey, 5*time.Second, locksmith.WaitFor(time.Minute), locksmith.Fence(fenceKey))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	time.Sleep(5 * time.Millisecond)
	return rdb.RPush(ctx, "proof:tokens", lease.Fence).Err()
}

func busy(ctx context.Context, rdb redis.UniversalClient) error {
	started := time.Now()
	_, err := locksmith.Acquire(ctx, rdb, lockKey, 5*time.Second, locksmith.WaitFor(500*time.Millisecond))
	if !errors.Is(err, locksmith.ErrBusy) {
		return fmt.Errorf("acquired a lock another owner holds, or failed otherwise: %v", err)
	}
	fmt.Printf("busy %d %v\n", time.Since(started).Milliseconds(), err)
	return nil
}

// takers take a kind on the lock key: the plain lock here, the other kinds from kinds.go.
var takers = map[string]func(context.Context, client, time.Duration, ...locksmith.Option) (*locksmith.Lease, error){
	"lock": func(ctx context.Context, rdb client, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
		return locksmith.Acquire(ctx, rdb, lockKey, ttl, opts...)
	},
}

// rounds are the modes that run a number of rounds; kinds.go adds the lock kinds' modes.
var rounds = map[string]func(context.Context, client) error{"counter": counterRound, "fence": fenceRound}

func acquireKind(ctx context.Context, rdb client, kind string, ttl time.Duration, opts ...locksmith.Option) (*locksmith.Lease, error) {
	if take, ok := takers[kind]; ok {
		return take(ctx, rdb, ttl, opts...)
	}
	return nil, fmt.Errorf("no kind %s", kind)
}

// count reads a counter of the proof (0 when unset).
func count(rdb client, key string) (int, error) {
	value, err := rdb.Get(context.Background(), key).Int()
	if err == redis.Nil {
		return 0, nil
	}
	return value, err
}

// increment adds delta to a counter of the proof and returns the new value.
func increment(rdb client, key string, delta int) int {
	return int(rdb.IncrBy(context.Background(), key, int64(delta)).Val())
}

// set writes a value of the proof; hget reads a hash field as a number (0 when unset).
func set(rdb client, key string, value interface{}) {
	rdb.Set(context.Background(), key, value, 0)
}

func hget(rdb client, key, field string) int {
	value, _ := rdb.HGet(context.Background(), key, field).Int()
	return value
}

func woken(ctx context.Context, rdb redis.UniversalClient, kind string) error {
	lease, err := acquireKind(ctx, rdb, kind, 5*time.Second, locksmith.WaitFor(time.Minute), locksmith.RetryEvery(30*time.Second))
	if err != nil {
		return err
	}
	fmt.Printf("held %d\n", time.Now().UnixMilli())
	_, err = lease.Release(ctx)
	return err
}

func hold(ctx context.Context, rdb redis.UniversalClient, kind string) error {
	if _, err := acquireKind(ctx, rdb, kind, holdTTL(), locksmith.WaitFor(0)); err != nil {
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

func take(ctx context.Context, rdb redis.UniversalClient, kind string) error {
	lease, err := acquireKind(ctx, rdb, kind, 5*time.Second)
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
	rdb, err := connect(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer rdb.Close()
	ctx := context.Background()
	once := map[string]func(context.Context, redis.UniversalClient) error{"renew": renew, "steal": steal, "busy": busy}
	kinded := map[string]func(context.Context, redis.UniversalClient, string) error{"woken": woken, "hold": hold, "take": take}
	switch {
	case rounds[mode] != nil:
		for i := 0; i < count && err == nil; i++ {
			err = rounds[mode](ctx, rdb)
		}
	case once[mode] != nil:
		err = once[mode](ctx, rdb)
	case kinded[mode] != nil && arg == "":
		err = kinded[mode](ctx, rdb, "lock")
	case kinded[mode] != nil:
		err = kinded[mode](ctx, rdb, arg)
	case parts[mode] != nil:
		err = parts[mode](ctx, rdb, arg)
	default:
		err = fmt.Errorf("unknown mode %s %s", mode, arg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
