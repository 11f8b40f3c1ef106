«section:scripts»
	readAcquireScript = redis.NewScript(-1, `«lua:read_acquire»`)
	writeAcquireScript = redis.NewScript(-1, `«lua:write_acquire»`)
	rwExtendScript = redis.NewScript(-1, `«lua:rw_extend»`)
	rwReleaseScript = redis.NewScript(-1, `«lua:rw_release»`)
«include:_go/read-write»
