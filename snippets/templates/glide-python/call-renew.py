async with lock(«client», «key», ttl_ms=«ttl», renew=True) as lease:
    # lease.lost is set when the lease is gone: check it before each write
    «body»
