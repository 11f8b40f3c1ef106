lease, err := locksmith.Acquire(ctx, «client», «key», «ttl»)
if err != nil {
	return err
}
defer lease.Release(ctx)
«body»
