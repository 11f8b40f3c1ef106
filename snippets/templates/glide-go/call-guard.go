lease, err := locksmith.Acquire(ctx, «client», «key», «ttl»*time.Millisecond)
if err != nil {
	return err
}
defer lease.Release(ctx)
«body»
