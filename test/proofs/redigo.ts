import { goProgram } from './go-build';
import { indent, type Proof } from './proof';

export const proof: Proof = {
  client: 'redigo',
  file: 'proof.go',
  ...goProgram('redigo'),
  // The snippet releases in a defer, so it runs in its own func per round; `after` is a defer
  // registered before the snippet's, so it runs after the release (defers run last-in, first-out).
  program: (snippet, after) => `package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
)

var _ = context.Background // only the renew snippet uses context

func round(pool *redis.Pool) (roundErr error) {
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
	url := os.Args[1]
	rounds, err := strconv.Atoi(os.Args[2])
	if err != nil {
		panic(err)
	}
	pool := &redis.Pool{MaxIdle: 2, Dial: func() (redis.Conn, error) { return redis.DialURL(url) }}
	defer pool.Close()
	for i := 0; i < rounds; i++ {
		if err := round(pool); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
`,
  bodies: {
    guard: `occupancy, err := redis.Int(lockConn.Do("INCR", "proof:occupancy"))
if err != nil {
	return err
}
if occupancy != 1 {
	return fmt.Errorf("two holders at once")
}
value, err := redis.Int(lockConn.Do("GET", "proof:counter"))
if err != nil && err != redis.ErrNil {
	return err
}
if _, err := lockConn.Do("SET", "proof:counter", value+1); err != nil {
	return err
}
if _, err := lockConn.Do("DECR", "proof:occupancy"); err != nil {
	return err
}`,
    renew: `for i := 0; i < 10; i++ {
	time.Sleep(500 * time.Millisecond)
	if holder, err := redis.String(lockConn.Do("GET", lockKey)); err != nil || holder != lockToken {
		return fmt.Errorf("lease lost while renewing: %q, %v", holder, err)
	}
}
if lockLost.Err() != nil {
	return fmt.Errorf("renewal reported a loss")
}
if _, err := lockConn.Do("INCR", "proof:renewed"); err != nil {
	return err
}`,
    // A round takes well under a millisecond, less than the two processes' start-up may differ
    // by on a busy machine: holding the lock for a moment, as real work would, makes them contend.
    fenced: `time.Sleep(5 * time.Millisecond)
if _, err := lockConn.Do("RPUSH", "proof:tokens", fencingToken); err != nil {
	return err
}`,
  },
  afterRenew: `conn := pool.Get()
defer conn.Close()
if _, err := conn.Do("SET", lockKey, lockToken); err != nil {
	return err
}
time.Sleep(3 * time.Duration(lockTtlMs) * time.Millisecond)
if pttl, err := redis.Int(conn.Do("PTTL", lockKey)); err != nil || pttl != -1 {
	return fmt.Errorf("still renewing after release: PTTL %d, %v", pttl, err)
}
if _, err := conn.Do("DEL", lockKey); err != nil {
	return err
}`,
};
