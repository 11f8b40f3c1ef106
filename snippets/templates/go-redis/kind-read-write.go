«section:scripts»
	readAcquireScript = redis.NewScript(`«lua:read_acquire»`)
	writeAcquireScript = redis.NewScript(`«lua:write_acquire»`)
	rwExtendScript = redis.NewScript(`«lua:rw_extend»`)
	rwReleaseScript = redis.NewScript(`«lua:rw_release»`)
«include:_go/read-write»
