let lease = Lease::acquire(&mut «client», «key», «ttl»)?;
«body»
lease.release(&mut «client»)?;
