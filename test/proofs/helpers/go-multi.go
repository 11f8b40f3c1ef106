// The modes of the Go helpers' multi part (test/helpers-go-parts-proof.test.ts), built beside the
// proof program as multi.go when its helper carries the part: `client` is that program's client
// type; count, increment and set are its (or its client-parts.go's).
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"time"

	"locksmithproof/locksmith"
)

func init() {
	parts["multi"] = multiWait
	parts["multi-try"] = multiTry
	parts["multi-lost"] = multiLost
	parts["multi-refused"] = multiRefused
}

// multiRefusals are the client's own bad uses of AcquireMulti (client-parts.go).
var multiRefusals []func(context.Context, client) error

// accounts are the multi modes' balances; each is guarded by the lock "lock:" + account (in a
// Cluster, the 4 locks hash to 4 slots).
var accounts = []string{"proof:acct:a", "proof:acct:b", "proof:acct:c", "proof:acct:d"}

// transfer picks 2 or 3 of the accounts at random: their locks, and the move of 1 from the first
// to the second, which fails on a second holder of any of the locks.
func transfer(c client) ([]string, func() error) {
	picked := append([]string(nil), accounts...)
	rand.Shuffle(len(picked), func(i, j int) { picked[i], picked[j] = picked[j], picked[i] })
	picked = picked[:2+rand.Intn(2)]
	locks := make([]string, len(picked))
	for i, account := range picked {
		locks[i] = "lock:" + account
	}
	return locks, func() error {
		for _, lock := range locks {
			if holders := increment(c, lock+":holders", 1); holders != 1 {
				return fmt.Errorf("two holders of %s (%d)", lock, holders)
			}
		}
		from, err := count(c, picked[0])
		if err != nil {
			return err
		}
		to, err := count(c, picked[1])
		if err != nil {
			return err
		}
		time.Sleep(3 * time.Millisecond)
		set(c, picked[0], from-1)
		set(c, picked[1], to+1)
		for _, lock := range locks {
			increment(c, lock+":holders", -1)
		}
		return nil
	}
}

// holdMulti runs move holding locks, waiting up to a minute: AcquireMulti, then Release (true:
// the token held every key); client-parts.go swaps in the helper's WithMultiLock where it has one.
var holdMulti = func(ctx context.Context, c client, locks []string, move func() error) error {
	lease, err := locksmith.AcquireMulti(ctx, c, locks, 5*time.Second, locksmith.WaitFor(time.Minute))
	if err != nil {
		return err
	}
	if err := move(); err != nil {
		return err
	}
	if released, err := lease.Release(ctx); err != nil || !released {
		return fmt.Errorf("the multi-key lease %v was lost: %v", lease.Keys, err)
	}
	return nil
}

// multiWait: rounds transfers, each waiting for its 2 or 3 locks.
func multiWait(ctx context.Context, c client, rounds string) error {
	n, err := strconv.Atoi(rounds)
	if err != nil {
		return err
	}
	if err := allStarted(c); err != nil {
		return err
	}
	for round := 0; round < n; round++ {
		locks, move := transfer(c)
		if err := holdMulti(ctx, c, locks, move); err != nil {
			return err
		}
	}
	increment(c, "proof:multi:done", 1)
	fmt.Printf("moved %d\n", n)
	return nil
}

// multiTry: such transfers that never wait (TryAcquireMulti), up to 10 ms apart (the waiters of a
// client that polls come back between), from when all 4 processes have started until the 3
// waiting ones are done and at least rounds of them; a busy try must leave none of its keys held
// by this process. Prints how many were busy, of how many.
func multiTry(ctx context.Context, c client, rounds string) error {
	n, err := strconv.Atoi(rounds)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	mine, busy := fmt.Sprintf("%s:%d:", host, os.Getpid()), 0
	if err := allStarted(c); err != nil {
		return err
	}
	round := 0
	for ; round < n || !transfersDone(c); round++ {
		time.Sleep(time.Duration(rand.Intn(10)) * time.Millisecond)
		locks, move := transfer(c)
		lease, ok, err := locksmith.TryAcquireMulti(ctx, c, locks, 5*time.Second)
		if err != nil {
			return err
		}
		if !ok {
			busy++
			for _, lock := range locks {
				if holder, err := get(ctx, c, lock); err != nil || strings.HasPrefix(holder, mine) {
					return fmt.Errorf("partial hold of %s after a busy try (%v)", lock, err)
				}
			}
			continue
		}
		if err := move(); err != nil {
			return err
		}
		if released, err := lease.Release(ctx); err != nil || !released {
			return fmt.Errorf("the multi-key lease %v was lost: %v", lease.Keys, err)
		}
	}
	fmt.Printf("busy %d of %d\n", busy, round)
	return nil
}

// allStarted counts this process in and waits until the test's 3 waiting processes and its tryer
// all are, so that the tries meet the transfers however late a process starts.
func allStarted(c client) error {
	increment(c, "proof:multi:started", 1)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if started, err := count(c, "proof:multi:started"); err == nil && started >= 4 {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the other transfer processes did not start within 30 s")
		}
	}
}

// transfersDone: whether the 3 waiting processes have made all their transfers.
func transfersDone(c client) bool {
	done, err := count(c, "proof:multi:done")
	return err == nil && done >= 3
}

// multiLost: a lease on 3 keys renewed (Renew) through 2 s on a 900 ms lease holds them all;
// another extends while it holds them all, and once one is taken by another owner its Extend and
// Release are false (the others released); a waiting AcquireMulti on that busy key gives up with a
// BusyError naming it, holding none; SetIfHeld refuses a multi-key lease.
func multiLost(ctx context.Context, c client, _ string) error {
	keys := []string{"lock:proof:acct:c", "lock:proof:acct:a", "lock:proof:acct:b"}
	renewed, err := locksmith.AcquireMulti(ctx, c, keys, 900*time.Millisecond, locksmith.Renew())
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	for _, key := range keys {
		if holder, err := get(ctx, c, key); err != nil || holder != renewed.Token {
			return fmt.Errorf("%s not renewed: %q, %v", key, holder, err)
		}
	}
	released, err := renewed.Release(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("renewed past its lease, released %v, lost %v\n", released, renewed.Err())
	lease, err := locksmith.AcquireMulti(ctx, c, keys, 10*time.Second)
	if err != nil {
		return err
	}
	fmt.Printf("held %s by %s\n", strings.Join(lease.Keys, " "), lease.Token)
	extended, err := lease.Extend(ctx, 20*time.Second)
	if err != nil {
		return err
	}
	if _, err := lease.SetIfHeld(ctx, "proof:data", "multi"); err != nil {
		fmt.Printf("refused %v\n", err)
	}
	set(c, "lock:proof:acct:b", "another owner")
	lost, err := lease.Extend(ctx, 20*time.Second)
	if err != nil {
		return err
	}
	released, err = lease.Release(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("extended %v, once one was lost extended %v released %v\n", extended, lost, released)
	_, err = locksmith.AcquireMulti(ctx, c, keys, 10*time.Second, locksmith.WaitFor(200*time.Millisecond))
	var busy *locksmith.BusyError
	if !errors.As(err, &busy) || !errors.Is(err, locksmith.ErrBusy) {
		return fmt.Errorf("no BusyError: %v", err)
	}
	fmt.Printf("busy %s: %v\n", busy.Key, err)
	return nil
}

// multiRefused: bad uses of AcquireMulti (and multiRefusals), each refused before anything is sent.
func multiRefused(ctx context.Context, c client, _ string) error {
	bad := []struct {
		keys []string
		ttl  time.Duration
		opts []locksmith.Option
	}{
		{nil, time.Second, nil},
		{[]string{"lock:a", "lock:b", "lock:a"}, time.Second, nil},
		{[]string{"lock:a", ""}, time.Second, nil},
		{[]string{"lock:a"}, 0, nil},
		{[]string{"lock:a"}, time.Second, []locksmith.Option{locksmith.RetryEvery(0)}},
		{[]string{"lock:a"}, time.Second, []locksmith.Option{locksmith.Fence("proof:fence")}},
	}
	cases := []func(context.Context, client) error{}
	for _, b := range bad {
		b := b
		cases = append(cases, func(ctx context.Context, c client) error {
			_, _, err := locksmith.TryAcquireMulti(ctx, c, b.keys, b.ttl, b.opts...)
			return err
		})
	}
	return printRefused(ctx, c, "AcquireMulti", append(cases, multiRefusals...))
}
