«section:scripts»
	semaphoreAcquireScript = redis.NewScript(`«lua:semaphore_acquire»`)
	semaphoreExtendScript = redis.NewScript(`«lua:semaphore_extend»`)
	semaphoreReleaseScript = redis.NewScript(`«lua:semaphore_release»`)
«include:_go/semaphore»
