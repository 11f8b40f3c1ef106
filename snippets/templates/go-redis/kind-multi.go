«section:scripts»
	multiAcquireScript = redis.NewScript(`«lua:multi_acquire»`)
	multiExtendScript = redis.NewScript(`«lua:multi_extend»`)
	multiReleaseScript = redis.NewScript(`«lua:multi_release»`)
«include:_go/multi»

func multiAcquire(ctx context.Context, client redis.Scripter, keys []string, token string, ttlMs int64) ([]int64, error) {
	return multiAcquireScript.Run(ctx, client, keys, token, ttlMs).Int64Slice()
}

// slotGroups: a *redis.ClusterClient's keys by hash slot, slot by slot; any other client's in one
// call. A *redis.Ring is refused: it picks each call's shard by its first key alone.
func slotGroups(client redis.Scripter, keys []string) ([][]string, error) {
	switch client.(type) {
	case *redis.ClusterClient:
		return bySlot(keys), nil
	case *redis.Ring:
		return nil, errors.New("locksmith: AcquireMulti cannot take keys across a *redis.Ring's shards: use one *redis.Client or a *redis.ClusterClient")
	}
	return [][]string{keys}, nil
}
«include:_go/multi-slots»
