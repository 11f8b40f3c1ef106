async with lock(«client», «key», ttl_ms=«ttl»):
    «body»
