«section:scripts»
	guardedSetScript = redis.NewScript(-1, `«lua:guarded_set»`)
	fencedSetScript = redis.NewScript(-1, `«lua:fenced_set»`)
«section:code»
«include:_go/fenced-writes»
