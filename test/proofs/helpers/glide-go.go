// Proof program for the generated Valkey GLIDE for Go helper (package locksmithproof/locksmith).
// Usage:
//
//	proof <url> <mode> [rounds or kind]; modes: counter, renew, steal, fence, busy, and for waiting
//	(kind "lock" only): woken, hold, take; with every part, those of go-parts.go.
//
// <url> is a redis:// URL (a *glide.Client), or cluster://host:port,host:port (a
// *glide.ClusterClient, given to EnableWakeups where the helper has it). The lock and fence keys come from PROOF_LOCK and
// PROOF_FENCE (default proof:lock, proof:fence): in a Cluster they share a {hash tag}.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
	"github.com/valkey-io/valkey-glide/go/v2/interfaces"

	"locksmithproof/locksmith"
)

var (
	lockKey  = envOr("PROOF_LOCK", "proof:lock")
	fenceKey = envOr("PROOF_FENCE", "proof:fence")
)

// GLIDE's default request timeout (250 ms) and connection timeout (2 s) are shorter than a shared
// 2-core machine starting 20 of these processes can answer in: a timed-out call fails, as it would
// for a user.
const (
	requestTimeout    = 5 * time.Second
	connectionTimeout = 5 * time.Second
)

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func address(hostPort string) (*config.NodeAddress, error) {
	host, port, found := strings.Cut(hostPort, ":")
	number, err := strconv.Atoi(port)
	if !found || err != nil {
		return nil, fmt.Errorf("not host:port: %q", hostPort)
	}
	return &config.NodeAddress{Host: host, Port: number}, nil
}

func connect(target string) (interfaces.BaseClientCommands, error) {
	if seeds, ok := strings.CutPrefix(target, "cluster://"); ok {
		configuration := config.NewClusterClientConfiguration().
			WithRequestTimeout(requestTimeout).
			WithAdvancedConfiguration(config.NewAdvancedClusterClientConfiguration().WithConnectionTimeout(connectionTimeout))
		for _, seed := range strings.Split(seeds, ",") {
			node, err := address(seed)
			if err != nil {
				return nil, err
			}
			configuration.WithAddress(node)
		}
		client, err := glide.NewClusterClient(configuration)
		if err != nil {
			return nil, err
		}
		if enableWakeups != nil {
			enableWakeups(client, configuration)
		}
		return client, nil
	}
	parsed, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	node, err := address(parsed.Host)
	if err != nil {
		return nil, err
	}
	return glide.NewClient(config.NewClientConfiguration().
		WithAddress(node).
		WithRequestTimeout(requestTimeout).
		WithAdvancedConfiguration(config.NewAdvancedClientConfiguration().WithConnectionTimeout(connectionTimeout)))
}

// enableWakeups is the helper's EnableWakeups when it has its wakeups part (glide-go-wakeups.go,
// built with such a helper, sets it), else nil: the core alone has no such function.
var enableWakeups func(*glide.ClusterClient, *config.ClusterClientConfiguration)

// client is what the helper's parts' modes (go-parts.go, built as parts.go) take, as every mode here.
type client = interfaces.BaseClientCommands

// parts are those modes: mode -> run(arg).
var parts = map[string]func(ctx context.Context, c client, arg string) error{}

// get reads a string key for those modes ("" when it is missing).
func get(ctx context.Context, c client, key string) (string, error) {
	value, err := c.Get(ctx, key)
	return value.Value(), err
}

func counterRound(ctx context.Context, c client) error {
	lease, err := locksmith.Acquire(ctx, c, lockKey, 30*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	if occupancy, err := c.Incr(ctx, "proof:occupancy"); err != nil || occupancy != 1 {
		return fmt.Errorf("two holders at once (%d, %v)", occupancy, err)
	}
	value, err := c.Get(ctx, "proof:counter")
	if err != nil {
		return err
	}
	count, _ := strconv.Atoi(value.Value()) // nil: 0
	if _, err := c.Set(ctx, "proof:counter", strconv.Itoa(count+1)); err != nil {
		return err
	}
	// The next script call of every process takes the NOSCRIPT path.
	if _, err := c.ScriptFlush(ctx); err != nil {
		return err
	}
	if _, err := c.Decr(ctx, "proof:occupancy"); err != nil {
		return err
	}
	if held, err := lease.Release(ctx); err != nil || !held {
		return fmt.Errorf("release: %v, %v", held, err)
	}
	return nil
}

func renew(ctx context.Context, c client) error {
	lease, err := locksmith.Acquire(ctx, c, lockKey, 1500*time.Millisecond, locksmith.Renew())
	if err != nil {
		return err
	}
	for i := 0; i < 50; i++ {
		time.Sleep(100 * time.Millisecond)
		if holder, err := c.Get(ctx, lockKey); err != nil || holder.Value() != lease.Token {
			return fmt.Errorf("lease lost while renewing: %q, %v", holder.Value(), err)
		}
	}
	if lease.Err() != nil {
		return fmt.Errorf("renewal reported a loss: %v", lease.Err())
	}
	if held, err := lease.Release(ctx); err != nil || !held {
		return fmt.Errorf("release found the lease gone: %v", err)
	}
	// No TTL: a renewal after release would add one.
	if _, err := c.Set(ctx, lockKey, lease.Token); err != nil {
		return err
	}
	time.Sleep(1500 * time.Millisecond)
	if pttl, err := c.PTTL(ctx, lockKey); err != nil || pttl != -1 {
		return fmt.Errorf("still renewing after release: PTTL %v, %v", pttl, err)
	}
	fmt.Println("renewed")
	_, err = c.Del(ctx, []string{lockKey})
	return err
}

func steal(ctx context.Context, c client) error {
	lease, err := locksmith.Acquire(ctx, c, lockKey, 900*time.Millisecond, locksmith.Renew())
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

func fenceRound(ctx context.Context, c client) error {
	lease, err := locksmith.Acquire(ctx, c, lockKey, 5*time.Second, locksmith.WaitFor(time.Minute), locksmith.Fence(fenceKey))
	if err != nil {
		return err
	}
	defer lease.Release(ctx)
	time.Sleep(5 * time.Millisecond)
	_, err = c.RPush(ctx, "proof:tokens", []string{strconv.FormatInt(lease.Fence, 10)})
	return err
}

func busy(ctx context.Context, c client) error {
	started := time.Now()
	_, err := locksmith.Acquire(ctx, c, lockKey, 5*time.Second, locksmith.WaitFor(500*time.Millisecond))
	if !errors.Is(err, locksmith.ErrBusy) {
		return fmt.Errorf("acquired a lock another owner holds, or failed otherwise: %v", err)
	}
	fmt.Printf("busy %d %v\n", time.Since(started).Milliseconds(), err)
	return nil
}

func woken(ctx context.Context, c client) error {
	lease, err := locksmith.Acquire(ctx, c, lockKey, 5*time.Second, locksmith.WaitFor(time.Minute), locksmith.RetryEvery(30*time.Second))
	if err != nil {
		return err
	}
	fmt.Printf("held %d\n", time.Now().UnixMilli())
	_, err = lease.Release(ctx)
	return err
}

func hold(ctx context.Context, c client) error {
	if _, err := locksmith.Acquire(ctx, c, lockKey, holdTTL(), locksmith.WaitFor(0)); err != nil {
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

func take(ctx context.Context, c client) error {
	lease, err := locksmith.Acquire(ctx, c, lockKey, 5*time.Second)
	if err != nil {
		return err
	}
	fmt.Printf("took %d\n", time.Now().UnixMilli())
	_, err = lease.Release(ctx)
	return err
}

func main() {
	target, mode := os.Args[1], os.Args[2]
	rounds, arg := 1, ""
	if len(os.Args) > 3 {
		arg = os.Args[3]
		rounds, _ = strconv.Atoi(arg)
	}
	c, err := connect(target)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer c.Close()
	ctx := context.Background()
	once := map[string]func(context.Context, client) error{
		"renew": renew, "steal": steal, "busy": busy, "woken": woken, "hold": hold, "take": take,
	}
	repeated := map[string]func(context.Context, client) error{"counter": counterRound, "fence": fenceRound}
	switch {
	case repeated[mode] != nil:
		for i := 0; i < rounds && err == nil; i++ {
			err = repeated[mode](ctx, c)
		}
	case once[mode] != nil && (arg == "" || arg == "lock" || mode == "renew"):
		err = once[mode](ctx, c)
	case parts[mode] != nil:
		err = parts[mode](ctx, c, arg)
	default:
		err = fmt.Errorf("unknown mode %s %s", mode, arg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
