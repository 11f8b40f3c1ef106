let options = LockOptions::new(Duration::from_millis(«ttl»)).renew(&client);
let lease = Lease::acquire_with(&mut «client», «key», &options)?;
// lease.lost() turns true when the lease is gone: check it before each write
«body»
lease.release(&mut «client»)?;
