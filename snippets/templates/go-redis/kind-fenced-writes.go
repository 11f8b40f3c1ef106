«section:scripts»
	guardedSetScript = redis.NewScript(`«lua:guarded_set»`)
	fencedSetScript = redis.NewScript(`«lua:fenced_set»`)
«section:code»
«include:_go/fenced-writes»
