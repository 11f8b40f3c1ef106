«section:scripts»
	guardedSetScript = newScript(`«lua:guarded_set»`)
	fencedSetScript = newScript(`«lua:fenced_set»`)
«section:code»
«include:_go/fenced-writes»
