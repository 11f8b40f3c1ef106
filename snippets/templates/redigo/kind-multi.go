«section:scripts»
	multiAcquireScript = redis.NewScript(-1, `«lua:multi_acquire»`)
	multiExtendScript = redis.NewScript(-1, `«lua:multi_extend»`)
	multiReleaseScript = redis.NewScript(-1, `«lua:multi_release»`)
«include:_go/multi»

func multiAcquire(ctx context.Context, pool Pool, keys []string, token string, ttlMs int64) ([]int64, error) {
	return redis.Int64s(do(ctx, pool, multiAcquireScript, keys, token, ttlMs))
}

// slotGroups: a Pool's connections go to one server, where every key is taken in one call.
func slotGroups(_ Pool, keys []string) ([][]string, error) {
	return [][]string{keys}, nil
}
