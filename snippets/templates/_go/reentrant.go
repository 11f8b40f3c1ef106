«section:options-fields»
	owner       string
«section:options»

// Reentrant makes Acquire take a reentrant lock held by owner (unique to your caller, e.g. a job
// id): an Acquire by the same owner while it holds the lock takes it again, and each take needs
// its own Release.
func Reentrant(owner string) Option { return func(o *options) { o.owner = owner } }
«section:acquire»
	if o.owner != "" {
		return acquireReentrant(ctx, client, key, ttl, o)
	}
«section:code»
«include-once:_go/kind-common»

var reentrantKind = kind{reentrantExtendScript, reentrantReleaseScript, "another owner"}

// acquireReentrant takes the reentrant lock of o.owner.
func acquireReentrant(ctx context.Context, client «var:client», key string, ttl time.Duration, o options) (*Lease, error) {
	if o.only != "" {
		return nil, fmt.Errorf("locksmith: %s works with a plain lock, not a Reentrant one", o.only)
	}
	host, _ := os.Hostname()
	token := fmt.Sprintf("%s:%d:%s", host, os.Getpid(), o.owner)
	return acquireKind(ctx, client, key, token, ttl, o, reentrantKind, reentrantAcquireScript, ttl.Milliseconds())
}
