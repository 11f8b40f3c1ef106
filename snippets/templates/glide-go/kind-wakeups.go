«section:doc»
//
// With wake-ups, a waiter waits in line (first come, first served). GLIDE has sharded pub/sub in
// cluster mode only, and a client's subscriptions feed the one message queue its application
// reads: so on a *glide.ClusterClient given to EnableWakeups the release wakes the waiter
// (SSUBSCRIBE on the lock key, from a subscriber client of the helper's own), and elsewhere
// waiters poll in line.
«section:imports»
«include-once:glide-go/import-glide»
«include-once:glide-go/import-config»
«section:scripts»
	acquireQueuedScript = newScript(`«lua:acquire_queued»`)
«include:_go/wakeups»

func runQueued(ctx context.Context, client Client, keys []string, args ...interface{}) ([]int64, error) {
	reply, err := invoke(ctx, client, acquireQueuedScript, keys, args)
	if err != nil {
		return nil, err
	}
	items, ok := reply.([]any)
	numbers := make([]int64, len(items))
	for i, item := range items {
		numbers[i], ok = item.(int64)
		if !ok {
			break
		}
	}
	if !ok {
		return nil, fmt.Errorf("locksmith: the script replied %#v, not integers", reply)
	}
	return numbers, nil
}

// canQueue: every Client has ZRem, which leaving the line needs.
func canQueue(Client) bool { return true }

// leaveLine takes a waiter that gave up off the queue, with a fresh context: ctx may be why.
func leaveLine(client Client, queue, token string) {
	client.ZRem(context.Background(), queue, []string{token})
}

// EnableWakeups lets the waiters of a cluster client be woken by the release: GLIDE cannot
// duplicate a client, so at the first wait the helper opens a subscriber client of its own from
// configuration (the one client was made with), kept for the process's life. Call it once per
// client: a second call keeps the first subscriber.
func EnableWakeups(client *glide.ClusterClient, configuration *config.ClusterClientConfiguration) {
	subscribersMu.Lock()
	defer subscribersMu.Unlock()
	if subscribers[client] == nil {
		subscribers[client] = &subscriber{configuration: configuration, waiters: map[string]map[chan string]bool{}}
	}
}

var (
	subscribersMu sync.Mutex
	subscribers   = map[*glide.ClusterClient]*subscriber{}
)

// subscriber holds a cluster client's wake-ups: the lock keys it SSUBSCRIBEs to, each with its
// waiters' channels.
type subscriber struct {
	configuration *config.ClusterClientConfiguration
	mu            sync.Mutex
	client        *glide.ClusterClient
	waiters       map[string]map[chan string]bool
}

func (s *subscriber) add(ctx context.Context, key string, messages chan string, patience time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		client, err := glide.NewClusterClient(s.configuration)
		if err != nil {
			return err
		}
		queue, err := client.GetQueue()
		if err != nil {
			client.Close()
			return err
		}
		s.client = client
		go func() {
			for {
				message := <-queue.WaitForMessage()
				s.mu.Lock()
				for waiter := range s.waiters[message.Channel] {
					select {
					case waiter <- message.Message:
					default: // already woken
					}
				}
				s.mu.Unlock()
			}
		}()
	}
	if len(s.waiters[key]) == 0 {
		if err := s.client.SSubscribe(ctx, []string{key}, int(patience.Milliseconds())); err != nil {
			return err
		}
		s.waiters[key] = map[chan string]bool{}
	}
	s.waiters[key][messages] = true
	return nil
}

func (s *subscriber) remove(key string, messages chan string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiters[key], messages)
	if len(s.waiters[key]) == 0 {
		delete(s.waiters, key)
		s.client.SUnsubscribeLazy(context.Background(), []string{key})
	}
}

// wakeups are a waiter's wake-ups: the scripts that free a lock SPUBLISH on its name, an empty
// payload (one waiter per client), '*' (all) or the token of the waiter to wake.
type wakeups struct {
	subscriber *subscriber
	key        string
	messages   chan string
	token      string
}

// listen subscribes to key's wake-ups on a cluster client given to EnableWakeups. Until the
// subscription is confirmed (or when it fails: a server before 7.0, no channel rights), and on
// any other client, the timer covers.
func listen(ctx context.Context, client Client, key, token string, patience time.Duration) *wakeups {
	w := &wakeups{key: key, token: token}
	cluster, ok := client.(*glide.ClusterClient)
	if !ok {
		return w
	}
	subscribersMu.Lock()
	s := subscribers[cluster]
	subscribersMu.Unlock()
	if s == nil {
		return w
	}
	messages := make(chan string, 1)
	if err := s.add(ctx, key, messages, patience); err == nil {
		w.subscriber, w.messages = s, messages
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
		case payload := <-w.messages:
			if payload == "" || payload == "*" || payload == w.token {
				return nil
			}
		}
	}
}

func (w *wakeups) close() {
	if w.subscriber != nil {
		w.subscriber.remove(w.key, w.messages)
	}
}
