// Redis lock (Redis Locksmith, auto-extending lease): acquire, renew every ttl/3 from a
// goroutine while the body runs, stop renewing on release. lockLost is a context cancelled when
// a renewal fails: the lease may have passed to another owner, so run the body's calls with
// lockLost and stop writing once it is done. A redigo Conn is not safe for concurrent use, so
// the renewer takes its own from `pool` (*redis.Pool). In a function returning error; the
// deferred release runs when that function returns, so give the lock its own function.
// Imports: context, crypto/rand, fmt, math/big, os, time, github.com/gomodule/redigo/redis.
locksmithAcquire := redis.NewScript(1, `«lua:acquire»`)
locksmithExtend := redis.NewScript(1, `«lua:extend»`)
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
lockLost, loseLock := context.WithCancel(context.Background())
defer loseLock()
lockReleased := make(chan struct{})
lockRenewerDone := make(chan struct{})
go func() {
	defer close(lockRenewerDone)
	renewConn := pool.Get()
	defer renewConn.Close()
	ticker := time.NewTicker(time.Duration(lockTtlMs) * time.Millisecond / 3)
	defer ticker.Stop()
	for {
		select {
		case <-lockReleased:
			return
		case <-ticker.C:
			held, err := redis.Int(locksmithExtend.Do(renewConn, lockKey, lockToken, lockTtlMs))
			if err != nil || held == 0 {
				loseLock()
				return
			}
		}
	}
}()
defer func() {
	close(lockReleased)
	<-lockRenewerDone                                 // no renewal may land after the release
	locksmithRelease.Do(lockConn, lockKey, lockToken) // if it fails, the lock expires after lockTtlMs
}()
_ = lockLost // the body's calls take lockLost as their context: done means the lease is gone
«body»
