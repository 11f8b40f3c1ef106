
// prepare checks the options of a read lock, write lock or semaphore, and makes the token.
func prepare(ttl time.Duration, opts []Option) (options, string, error) {
	o, token, err := configure(ttl, opts)
	if err == nil && o.only != "" {
		err = fmt.Errorf("locksmith: %s works with Acquire only", o.only)
	}
	return o, token, err
}

func acquireKind(ctx context.Context, client «var:client», key, token string, ttl time.Duration, o options, k kind, script *redis.Script, args ...interface{}) (*Lease, error) {
	try := func() (int64, int64, error) {
		reply, err := run(ctx, client, script, []string{key}, append([]interface{}{token}, args...)...)
		return reply, -1, err
	}
	reply, err := take(ctx, client, key, token, o, try)
	if err != nil {
		return nil, err
	}
	if reply == 0 {
		return nil, &BusyError{Key: key, Waited: o.wait, Holders: k.holders}
	}
	return newLease(client, k, key, token, ttl).held(o.renew), nil
}
