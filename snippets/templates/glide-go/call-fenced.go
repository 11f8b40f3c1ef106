lease, err := locksmith.Acquire(ctx, «client», «key», «ttl», locksmith.Fence(«fence»))
if err != nil {
	return err
}
defer lease.Release(ctx)
// lease.Fence grows with every new holder: the guarded resource refuses older ones
«body»
