import { goProgram } from './go-build';
import { indent, type Proof } from './proof';

// As go-redis.ts: each round in its own func, `after` a defer that runs after the release; the
// client a *glide.Client of GLIDE for Go (test/proofs/go pins it).
export const proof: Proof = {
  client: 'glide-go',
  file: 'proof.go',
  ...goProgram('glide-go'),
  program: (snippet, after) => `package main

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"math"
	"math/rand"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
	"github.com/valkey-io/valkey-glide/go/v2/options"
)

var (
	_ = crand.Read // not every snippet uses each import
	_ = math.Min
	_ = rand.Float64
)

func round(ctx context.Context, client *glide.Client) (roundErr error) {
	var afterRelease func() error
	defer func() {
		if roundErr == nil && afterRelease != nil {
			roundErr = afterRelease()
		}
	}()
${indent(snippet, '\t')}
	afterRelease = func() error {
${indent(after, '\t\t')}
		return nil
	}
	return nil
}

func main() {
	target, err := url.Parse(os.Args[1])
	if err != nil {
		panic(err)
	}
	port, err := strconv.Atoi(target.Port())
	if err != nil {
		panic(err)
	}
	rounds, err := strconv.Atoi(os.Args[2])
	if err != nil {
		panic(err)
	}
	// GLIDE's default timeouts (250 ms a request, 2 s a connection) are shorter than a loaded 2-core machine answers in.
	client, err := glide.NewClient(config.NewClientConfiguration().
		WithAddress(&config.NodeAddress{Host: target.Hostname(), Port: port}).
		WithRequestTimeout(5 * time.Second).
		WithAdvancedConfiguration(config.NewAdvancedClientConfiguration().WithConnectionTimeout(5 * time.Second)))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	for i := 0; i < rounds; i++ {
		if err := round(context.Background(), client); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
`,
  bodies: {
    // SCRIPT FLUSH makes the release (and the other process's next acquire) load the script again.
    guard: `occupancy, err := client.Incr(ctx, "proof:occupancy")
if err != nil {
	return err
}
if occupancy != 1 {
	return fmt.Errorf("two holders at once")
}
value, err := client.Get(ctx, "proof:counter")
if err != nil {
	return err
}
count, _ := strconv.Atoi(value.Value()) // nil: 0
if _, err := client.Set(ctx, "proof:counter", strconv.Itoa(count+1)); err != nil {
	return err
}
if _, err := client.ScriptFlush(ctx); err != nil {
	return err
}
if _, err := client.Decr(ctx, "proof:occupancy"); err != nil {
	return err
}`,
    renew: `for i := 0; i < 10; i++ {
	time.Sleep(500 * time.Millisecond)
	if holder, err := client.Get(lockLost, lockKey); err != nil || holder.Value() != lockToken {
		return fmt.Errorf("lease lost while renewing: %q, %v", holder.Value(), err)
	}
}
if lockLost.Err() != nil {
	return fmt.Errorf("renewal reported a loss: %v", context.Cause(lockLost))
}
if _, err := client.Incr(ctx, "proof:renewed"); err != nil {
	return err
}`,
    // Holding the lock for a moment, as real work would, makes the two processes contend.
    fenced: `time.Sleep(5 * time.Millisecond)
if _, err := client.RPush(ctx, "proof:tokens", []string{strconv.FormatInt(fencingToken, 10)}); err != nil {
	return err
}`,
  },
  afterRenew: `if _, err := client.Set(ctx, lockKey, lockToken); err != nil {
	return err
}
time.Sleep(3 * time.Duration(lockTtlMs) * time.Millisecond)
if pttl, err := client.PTTL(ctx, lockKey); err != nil || pttl != -1 {
	return fmt.Errorf("still renewing after release: PTTL %v, %v", pttl, err)
}
if _, err := client.Del(ctx, []string{lockKey}); err != nil {
	return err
}`,
};
