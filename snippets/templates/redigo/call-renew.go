lease, err := locksmith.Acquire(ctx, «client», «key», «ttl», locksmith.Renew())
if err != nil {
	return err
}
defer lease.Release(ctx)
// lease.Lost() is closed when the lease is gone: select on it, or check lease.Err() before writing
«body»
