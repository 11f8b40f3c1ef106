
// SetIfHeld sets the string key data to value (its TTL kept) only while this lease still holds
// the lock, in one call (guarded_set): false, and nothing written, once the lease is lost (expired,
// or taken by another owner), however long this holder was paused. data must be in the lock's hash
// slot (in a Cluster: the lock key's {hash tag}).
func (l *Lease) SetIfHeld(ctx context.Context, data, value string) (bool, error) {
	if l.kind != plainKind {
		return false, errors.New("locksmith: SetIfHeld works with a plain lock's lease")
	}
	written, err := run(ctx, l.client, guardedSetScript, []string{l.Key, data}, l.Token, value)
	return written == 1, err
}

// SetFenced writes value into the hash data ({value, fence}) with this lease's fencing token, in
// one call (fenced_set): false, and nothing written, when a newer token has written data already
// (equal tokens may write again). It needs the Fence option; data may be in any slot.
func (l *Lease) SetFenced(ctx context.Context, data, value string) (bool, error) {
	if l.Fence < 1 {
		return false, errors.New("locksmith: SetFenced needs a fencing token: Acquire with Fence")
	}
	written, err := run(ctx, l.client, fencedSetScript, []string{data}, l.Fence, value)
	return written == 1, err
}
