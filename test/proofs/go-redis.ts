import { goProgram } from './go-build';
import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'go-redis',
  file: 'proof.go',
  ...goProgram('go-redis'),
  // As in redigo.ts: each round in its own func, `after` a defer that runs after the release.
  program: (snippet, after) => `package main

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	_ = crand.Read // not every snippet uses each import
	_ = math.Min
	_ = rand.Float64
)

func round(ctx context.Context, rdb *redis.Client) (roundErr error) {
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
	options, err := redis.ParseURL(os.Args[1])
	if err != nil {
		panic(err)
	}
	rounds, err := strconv.Atoi(os.Args[2])
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(options)
	defer rdb.Close()
	for i := 0; i < rounds; i++ {
		if err := round(context.Background(), rdb); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
`,
  bodies: {
    guard: `occupancy, err := rdb.Incr(ctx, "proof:occupancy").Result()
if err != nil {
	return err
}
if occupancy != 1 {
	return fmt.Errorf("two holders at once")
}
value, err := rdb.Get(ctx, "proof:counter").Int()
if err != nil && err != redis.Nil {
	return err
}
if err := rdb.Set(ctx, "proof:counter", value+1, 0).Err(); err != nil {
	return err
}
if err := rdb.Decr(ctx, "proof:occupancy").Err(); err != nil {
	return err
}`,
    renew: `for i := 0; i < 10; i++ {
	time.Sleep(500 * time.Millisecond)
	if holder, err := rdb.Get(lockLost, lockKey).Result(); err != nil || holder != lockToken {
		return fmt.Errorf("lease lost while renewing: %q, %v", holder, err)
	}
}
if lockLost.Err() != nil {
	return fmt.Errorf("renewal reported a loss: %v", context.Cause(lockLost))
}
if err := rdb.Incr(ctx, "proof:renewed").Err(); err != nil {
	return err
}`,
    // A round takes well under a millisecond: holding the lock for a moment, as real work would,
    // makes the two processes contend.
    fenced: `time.Sleep(5 * time.Millisecond)
if err := rdb.RPush(ctx, "proof:tokens", fencingToken).Err(); err != nil {
	return err
}`,
  },
  afterRenew: `if err := rdb.Set(ctx, lockKey, lockToken, 0).Err(); err != nil {
	return err
}
time.Sleep(3 * time.Duration(lockTtlMs) * time.Millisecond)
if pttl, err := rdb.PTTL(ctx, lockKey).Result(); err != nil || pttl != -1 {
	return fmt.Errorf("still renewing after release: PTTL %v, %v", pttl, err)
}
if err := rdb.Del(ctx, lockKey).Err(); err != nil {
	return err
}`,
};
