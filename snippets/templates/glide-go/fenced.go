// Redis lock (Redis Locksmith, fenced): acquire returns a fencing token that grows with every
// new holder. Pass it to the guarded resource, which rejects writes with an older token, so a
// holder whose lease expired (GC pause, network stall) cannot overwrite its successor.
// Lock and fence keys must share a hash slot in Redis Cluster: use the same {hash tag}.
// Assumes `client` (*glide.Client or *glide.ClusterClient) and `ctx`, in a function
// returning error; the deferred release runs when that function returns, so give the lock its
// own function. Go 1.21+. Imports: context, crand "crypto/rand", fmt, math, math/rand, os,
// strconv, strings, time, github.com/valkey-io/valkey-glide/go/v2/options.
locksmithAcquire := options.NewScript(`«lua:acquire»`)
locksmithRelease := options.NewScript(`«lua:release»`)
// GLIDE runs a Script with EVALSHA and loads it again on NOSCRIPT; a flush between the two (SCRIPT
// FLUSH, a failover) still gives NOSCRIPT, and then the call goes again, up to 3 times.
lockInvoke := func(ctx context.Context, script *options.Script, keys []string, args ...string) (reply any, err error) {
	for try := 0; try < 3; try++ {
		reply, err = client.InvokeScriptWithOptions(ctx, *script, *options.NewScriptOptions().WithKeys(keys).WithArgs(args))
		if err == nil || !strings.Contains(err.Error(), "NoScript") {
			break
		}
	}
	return reply, err
}
lockKey := «key»
lockTtlMs := «ttl»
fenceKey := «fence»
lockHost, _ := os.Hostname()
lockRandom := make([]byte, 8)
if _, err := crand.Read(lockRandom); err != nil {
	return err
}
lockToken := fmt.Sprintf("%s:%d:%x", lockHost, os.Getpid(), lockRandom)
lockWaitUntil := time.Now().Add(10 * time.Second) // give up after waiting 10 s
var fencingToken int64
for attempt := 0; ; attempt++ {
	reply, err := lockInvoke(ctx, locksmithAcquire, []string{lockKey, fenceKey}, lockToken, strconv.Itoa(lockTtlMs))
	if err != nil {
		return err
	}
	if fencingToken, _ = reply.(int64); fencingToken != 0 {
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
defer lockInvoke(context.WithoutCancel(ctx), locksmithRelease, []string{lockKey}, lockToken)
_ = fencingToken // send it with every write; the resource rejects tokens older than the newest it saw
«body»
