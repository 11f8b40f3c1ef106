«section:code»
«include-once:_go/kind-common»

var (
	readKind  = kind{rwExtendScript, rwReleaseScript, "a writer"}
	writeKind = kind{rwExtendScript, rwReleaseScript, "readers or another writer"}
)

// AcquireRead takes a read lock: held with other readers, never with a writer.
func AcquireRead(ctx context.Context, client «var:client», key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	return acquireKind(ctx, client, key, token, ttl, o, readKind, readAcquireScript, ttl.Milliseconds())
}

// AcquireWrite takes the write lock: held alone, with no reader. While it waits, its intent keeps
// new readers out (renewed by every try), so a stream of readers cannot starve it.
func AcquireWrite(ctx context.Context, client «var:client», key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, token, err := prepare(ttl, opts)
	if err != nil {
		return nil, err
	}
	intentMs := int64(1)
	if o.wait > 0 {
		intentMs = 2 * o.retry.Milliseconds()
	}
	return acquireKind(ctx, client, key, token, ttl, o, writeKind, writeAcquireScript, ttl.Milliseconds(), intentMs)
}
