«section:doc»
//
// With wake-ups, a waiter waits in line (first come, first served) and sleeps until the release
// wakes it (SSubscribe on the lock key), the holder's lease ends, or the retry bound passes.
// Another redis.Scripter than *redis.Client, *redis.ClusterClient or *redis.Ring polls.
«section:strings-import»
«include-once:_go/import-strings»
«section:scripts»
	acquireQueuedScript = redis.NewScript(`«lua:acquire_queued»`)
«include:_go/wakeups»

func runQueued(ctx context.Context, client redis.Scripter, keys []string, args ...interface{}) ([]int64, error) {
	return acquireQueuedScript.Run(ctx, client, keys, args...).Int64Slice()
}

// waitable is what waiting for wake-ups in line needs besides the scripts: *redis.Client,
// *redis.ClusterClient and *redis.Ring have it.
type waitable interface {
	SSubscribe(ctx context.Context, channels ...string) *redis.PubSub
	ZRem(ctx context.Context, key string, members ...interface{}) *redis.IntCmd
}

func canQueue(client redis.Scripter) bool {
	_, ok := client.(waitable)
	return ok
}

// leaveLine takes a waiter that gave up off the queue, with a fresh context: ctx may be why.
func leaveLine(client redis.Scripter, queue, token string) {
	client.(waitable).ZRem(context.Background(), queue, token)
}

// wakeups are a waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, an empty
// payload (one waiter per client), '*' (all) or the token of the waiter to wake.
type wakeups struct {
	pubsub   *redis.PubSub
	messages <-chan *redis.Message
	token    string
}

// listen subscribes to key's wake-ups. Until the subscription is confirmed (or when it fails: a
// server before 7.0, no channel rights) the timer covers.
func listen(ctx context.Context, client redis.Scripter, key, token string, patience time.Duration) *wakeups {
	w := &wakeups{token: token}
	if waiting, ok := client.(waitable); ok {
		w.pubsub = waiting.SSubscribe(ctx, key)
		confirm, cancel := context.WithTimeout(ctx, patience)
		if _, err := w.pubsub.Receive(confirm); err == nil {
			w.messages = w.pubsub.Channel()
		}
		cancel()
	}
	return w
}

// wait returns when a wake-up for this waiter comes, after d, or with ctx's error when it ends.
func (w *wakeups) wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		case message, open := <-w.messages:
			if !open || message.Payload == "" || message.Payload == "*" || message.Payload == w.token {
				return nil
			}
		}
	}
}

func (w *wakeups) close() {
	if w.pubsub != nil {
		w.pubsub.Close()
	}
}
