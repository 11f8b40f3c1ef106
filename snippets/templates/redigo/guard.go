// Redis lock (Redis Locksmith, guarded section): atomic acquire with a lease in ms, bounded
// retry, compare-and-delete release deferred. redis.NewScript runs EVALSHA and falls back to
// EVAL on NOSCRIPT. Assumes `pool` (*redis.Pool), in a function returning error; the deferred
// release runs when that function returns, so give the lock its own function.
// Imports: crypto/rand, fmt, math/big, os, time, github.com/gomodule/redigo/redis.
locksmithAcquire := redis.NewScript(1, `«lua:acquire»`)
locksmithRelease := redis.NewScript(1, `«lua:release»`)
lockConn := pool.Get()
defer lockConn.Close()
lockKey := «key»
lockTtlMs := «ttl»
lockHost, _ := os.Hostname()
lockRandom := make([]byte, 8)
if _, err := rand.Read(lockRandom); err != nil {
	return err
}
lockToken := fmt.Sprintf("%s:%d:%x", lockHost, os.Getpid(), lockRandom)
lockWaitUntil := time.Now().Add(10 * time.Second) // give up after waiting 10 s
for attempt := 0; ; attempt++ {
	held, err := redis.Int(locksmithAcquire.Do(lockConn, lockKey, lockToken, lockTtlMs))
	if err != nil {
		return err
	}
	if held != 0 {
		break
	}
	if time.Now().After(lockWaitUntil) {
		return fmt.Errorf("%s is still held by another owner", lockKey)
	}
	lockBackoff := 500 * time.Millisecond
	if attempt < 6 {
		lockBackoff = 10 * time.Millisecond << attempt
	}
	// ±50% jitter from crypto/rand: math/rand is unseeded before Go 1.20, so it would not spread.
	jitter, err := rand.Int(rand.Reader, big.NewInt(int64(lockBackoff)))
	if err != nil {
		return err
	}
	time.Sleep(lockBackoff/2 + time.Duration(jitter.Int64()))
}
// A failed release leaves the lock to expire after lockTtlMs.
defer locksmithRelease.Do(lockConn, lockKey, lockToken)
«body»
