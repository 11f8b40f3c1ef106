«section:code»
«include-once:_go/kind-common»

var semaphoreKind = kind{semaphoreExtendScript, semaphoreReleaseScript, "the other holders of its permits"}

// AcquireSemaphore takes one of permits permits of the semaphore key, each holder with its own
// lease: a holder that dies gives its permit back when its lease ends. permits must be the same
// for every caller while any permit is held.
func AcquireSemaphore(ctx context.Context, client «var:client», key string, permits int, ttl time.Duration, opts ...Option) (*Lease, error) {
	if permits < 1 || permits > 999999999 {
		return nil, fmt.Errorf("locksmith: permits must be from 1 to 999999999, got %d", permits)
	}
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	return acquireKind(ctx, client, key, token, ttl, o, semaphoreKind, semaphoreAcquireScript, ttl.Milliseconds(), permits)
}
