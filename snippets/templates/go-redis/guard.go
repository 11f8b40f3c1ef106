// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release deferred. redis.NewScript runs EVALSHA and falls back to
// EVAL on NOSCRIPT. Assumes `rdb` (*redis.Client or any redis.Scripter) and `ctx`, in a function
// returning error; the deferred release runs when that function returns, so give the lock its
// own function. Go 1.21+. Imports: context, crand "crypto/rand", fmt, math, math/rand, os, time,
// github.com/redis/go-redis/v9.
locksmithAcquire := redis.NewScript(`«lua:acquire»`)
locksmithRelease := redis.NewScript(`«lua:release»`)
lockKey := «key»
lockTtlMs := «ttl»
lockHost, _ := os.Hostname()
lockRandom := make([]byte, 8)
if _, err := crand.Read(lockRandom); err != nil {
	return err
}
lockToken := fmt.Sprintf("%s:%d:%x", lockHost, os.Getpid(), lockRandom)
lockWaitUntil := time.Now().Add(10 * time.Second) // give up after waiting 10 s
for attempt := 0; ; attempt++ {
	acquired, err := locksmithAcquire.Run(ctx, rdb, []string{lockKey}, lockToken, lockTtlMs).Int64()
	if err != nil {
		return err
	}
	if acquired != 0 {
		break
	}
	if time.Now().After(lockWaitUntil) {
		return fmt.Errorf("%s is still held by another owner", lockKey)
	}
	backoffMs := math.Min(10*math.Exp2(float64(attempt)), 500) * (0.5 + rand.Float64())
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(backoffMs * float64(time.Millisecond))):
	}
}
// Released even when ctx is cancelled, so the next holder need not wait out the lease.
defer locksmithRelease.Run(context.WithoutCancel(ctx), rdb, []string{lockKey}, lockToken)
«body»
