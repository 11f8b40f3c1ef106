«section:imports»
«include-once:glide-go/import-glide»
«section:scripts»
	multiAcquireScript = newScript(`«lua:multi_acquire»`)
	multiExtendScript = newScript(`«lua:multi_extend»`)
	multiReleaseScript = newScript(`«lua:multi_release»`)
«include:_go/multi»

// WithMultiLock runs fn while it holds every lock in keys (AcquireMulti's waiting and options),
// then releases them, also when fn panics: fn's error, else the release's.
func WithMultiLock(ctx context.Context, client Client, keys []string, ttl time.Duration, fn func(*Lease) error, opts ...Option) (err error) {
	lease, err := AcquireMulti(ctx, client, keys, ttl, opts...)
	if err != nil {
		return err
	}
	defer func() {
		// A cancelled ctx must not leave the next holders waiting out the lease.
		if _, released := lease.Release(context.WithoutCancel(ctx)); err == nil {
			err = released
		}
	}()
	return fn(lease)
}

func multiAcquire(ctx context.Context, client Client, keys []string, token string, ttlMs int64) ([]int64, error) {
	reply, err := invoke(ctx, client, multiAcquireScript, keys, []interface{}{token, ttlMs})
	if err != nil {
		return nil, err
	}
	items, _ := reply.([]any)
	var numbers []int64
	for _, item := range items {
		if number, ok := item.(int64); ok {
			numbers = append(numbers, number)
		}
	}
	return numbers, nil
}

// slotGroups: a *glide.ClusterClient's keys by hash slot, slot by slot; a *glide.Client's in one
// call.
func slotGroups(client Client, keys []string) ([][]string, error) {
	if _, ok := client.(*glide.ClusterClient); ok {
		return bySlot(keys), nil
	}
	return [][]string{keys}, nil
}
«include:_go/multi-slots»
