«section:scripts»
	reentrantAcquireScript = redis.NewScript(-1, `«lua:reentrant_acquire»`)
	reentrantExtendScript = redis.NewScript(-1, `«lua:reentrant_extend»`)
	reentrantReleaseScript = redis.NewScript(-1, `«lua:reentrant_release»`)
«include:_go/reentrant»
