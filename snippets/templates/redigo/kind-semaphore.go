«section:scripts»
	semaphoreAcquireScript = redis.NewScript(-1, `«lua:semaphore_acquire»`)
	semaphoreExtendScript = redis.NewScript(-1, `«lua:semaphore_extend»`)
	semaphoreReleaseScript = redis.NewScript(-1, `«lua:semaphore_release»`)
«section:code»
«include-once:redigo/kind-common»

var semaphoreKind = kind{semaphoreExtendScript, semaphoreReleaseScript, "the other holders of its permits"}

// AcquireSemaphore takes one of permits permits of the semaphore key, each holder with its own
// lease: a holder that dies gives its permit back when its lease ends. permits must be the same
// for every caller while any permit is held.
func AcquireSemaphore(ctx context.Context, pool Pool, key string, permits int, ttl time.Duration, opts ...Option) (*Lease, error) {
	if permits < 1 || permits > 999999999 {
		return nil, fmt.Errorf("locksmith: permits must be from 1 to 999999999, got %d", permits)
	}
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	return acquireKind(ctx, pool, key, token, ttl, o, semaphoreKind, semaphoreAcquireScript, ttl.Milliseconds(), permits)
}
