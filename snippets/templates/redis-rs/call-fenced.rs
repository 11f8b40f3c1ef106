let lease = Lease::acquire_with(&mut «client», «key», &LockOptions::new(«ttl»).fence_key(«fence»))?;
// lease.fence() grows with every new holder: the guarded resource refuses older ones
«body»
lease.release(&mut «client»)?;
