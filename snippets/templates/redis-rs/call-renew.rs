let lease = Lease::acquire_with(&mut «client», «key», &LockOptions::new(«ttl»).renew(&client))?;
// lease.lost() turns true when the lease is gone: check it before each write
«body»
lease.release(&mut «client»)?;
