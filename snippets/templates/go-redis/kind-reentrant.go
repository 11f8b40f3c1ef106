«section:scripts»
	reentrantAcquireScript = redis.NewScript(`«lua:reentrant_acquire»`)
	reentrantExtendScript = redis.NewScript(`«lua:reentrant_extend»`)
	reentrantReleaseScript = redis.NewScript(`«lua:reentrant_release»`)
«include:_go/reentrant»
