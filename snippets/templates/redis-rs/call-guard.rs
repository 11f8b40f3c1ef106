let lease = Lease::acquire(&mut «client», «key», Duration::from_millis(«ttl»))?;
«body»
lease.release(&mut «client»)?;
