// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// redis.NewScript runs EVALSHA, EVAL on NOSCRIPT. Assumes `pool` (*redis.Pool), in a function
// returning error; the deferred release runs when it returns: give the lock its own function.
// Imports: crypto/rand, fmt, math/big, os, time, github.com/gomodule/redigo/redis.
locksmithAcquire := redis.NewScript(2, `«lua:acquire»`)
locksmithRelease := redis.NewScript(1, `«lua:release»`)
lockConn := pool.Get()
defer lockConn.Close()
lockKey := «key»
fenceKey := «fence»
lockTtlMs := «ttl»
lockHost, _ := os.Hostname()
lockRandom := make([]byte, 8)
if _, err := rand.Read(lockRandom); err != nil {
	return err
}
lockToken := fmt.Sprintf("%s:%d:%x", lockHost, os.Getpid(), lockRandom)
lockWaitUntil := time.Now().Add(10 * time.Second) // give up after waiting 10 s
var fencingToken int64
for attempt := 0; ; attempt++ {
	reply, err := redis.Int64(locksmithAcquire.Do(lockConn, lockKey, fenceKey, lockToken, lockTtlMs))
	if err != nil {
		return err
	}
	if reply != 0 {
		fencingToken = reply
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
_ = fencingToken // send it with every write; the resource rejects tokens older than the newest it saw
«body»
