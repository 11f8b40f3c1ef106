async with lock(«client», «key», ttl_ms=«ttl», fence_key=«fence») as lease:
    # lease.fence grows with every new holder: the guarded resource refuses older ones
    «body»
