«section:scripts»
	semaphoreAcquireScript = redis.NewScript(-1, `«lua:semaphore_acquire»`)
	semaphoreExtendScript = redis.NewScript(-1, `«lua:semaphore_extend»`)
	semaphoreReleaseScript = redis.NewScript(-1, `«lua:semaphore_release»`)
«include:_go/semaphore»
