«section:lease-state»
	queue         string // taken in line: its release wakes the next in line
«section:take»
	if err == nil && reply == 0 && o.wait > 0 {
		w := listen(ctx, client, key, token, o.retry)
		defer w.close()
		sleep = w.wait
		reply, pttl, err = try() // a release may have gone out before the subscription
	}
«section:attempt»
	if queue := waitersKey(key); o.wait > 0 && queue != "" && canQueue(client) {
		// In line: the release takes the first waiter off the queue and wakes exactly that one.
		lease.queue = queue
		queued, queueMs := append([]string{key, lease.queue}, keys[1:]...), (o.wait + 2*o.retry).Milliseconds()
		try = func() (int64, int64, error) {
			reply, err := runQueued(ctx, scripts, queued, token, ttl.Milliseconds(), queueMs)
			if err == nil && len(reply) != 3 {
				err = fmt.Errorf("locksmith: acquire_queued replied %v, not {reply, PTTL, waiters}", reply)
			}
			if err != nil {
				return 0, -1, err
			}
			return reply[0], reply[1], nil
		}
	}
«section:acquired»
	if reply == 0 && lease.queue != "" {
		leaveLine(client, lease.queue, token) // failing that, the queue ends by itself
	}
«section:release-keys»
	if l.queue != "" {
		keys = append(keys, l.queue)
	}
«section:code»

// waitersKey is the waiter queue of a plain lock, in its hash slot: lock:{order:42} ->
// lock:{order:42}:waiters, lock:order:42 -> {lock:order:42}:waiters; "" for a key with '}' and no
// hash tag.
func waitersKey(key string) string {
	if open := strings.IndexByte(key, '{'); open >= 0 && strings.IndexByte(key[open+1:], '}') > 0 {
		return key + ":waiters"
	}
	if strings.Contains(key, "}") {
		return ""
	}
	return "{" + key + "}:waiters"
}
