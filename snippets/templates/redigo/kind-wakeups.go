«section:doc»
//
// With wake-ups, a waiter waits in line (first come, first served) and sleeps until the release
// wakes it (SSUBSCRIBE on the lock key, on a connection of its own dialed the pool's way), the
// holder's lease ends, or the retry bound passes. A Pool that is no *redis.Pool waits in line by polling.
«section:strings-import»
«include-once:_go/import-strings»
«section:scripts»
	acquireQueuedScript = redis.NewScript(-1, `«lua:acquire_queued»`)
«include:_go/wakeups»

func runQueued(ctx context.Context, pool Pool, keys []string, args ...interface{}) ([]int64, error) {
	return redis.Int64s(do(ctx, pool, acquireQueuedScript, keys, args...))
}

func canQueue(Pool) bool { return true }

// leaveLine takes a waiter that gave up off the queue, with a fresh context: ctx may be why.
func leaveLine(pool Pool, queue, token string) {
	if conn, err := pool.GetContext(context.Background()); err == nil {
		conn.Do("ZREM", queue, token)
		conn.Close()
	}
}

// wakeups are a waiter's wake-ups, read by a goroutine from a connection of its own.
type wakeups struct {
	conn  redis.Conn
	woken chan struct{}
	done  chan struct{}
}

// listen subscribes to key's wake-ups: the scripts that free a lock SPUBLISH on its name, an
// empty payload (one waiter per client), '*' (all) or the token of the waiter to wake. It returns
// once subscribed, or after patience: a failed subscription (a server before 7.0, an ACL without
// channel rights) leaves the retry bound.
func listen(ctx context.Context, pool Pool, key, token string, patience time.Duration) *wakeups {
	w := &wakeups{woken: make(chan struct{}, 1), done: make(chan struct{})}
	p, ok := pool.(*redis.Pool)
	var conn redis.Conn
	var err error
	switch {
	case ok && p.DialContext != nil:
		conn, err = p.DialContext(ctx)
	case ok && p.Dial != nil:
		conn, err = p.Dial()
	default:
		err = errors.New("no dial function")
	}
	if err == nil {
		if err = conn.Send("SSUBSCRIBE", key); err == nil {
			err = conn.Flush()
		}
		if err != nil {
			conn.Close()
		}
	}
	if err != nil {
		close(w.done)
		return w
	}
	w.conn = conn
	subscribed := make(chan struct{})
	go func() {
		defer close(w.done)
		for {
			reply, err := redis.Values(conn.Receive())
			if err != nil || len(reply) != 3 {
				return // closed, or no subscription: the retry bound covers
			}
			event, _ := redis.String(reply[0], nil)
			payload, _ := redis.String(reply[2], nil)
			switch {
			case event == "ssubscribe":
				close(subscribed)
			case event == "smessage" && (payload == "" || payload == "*" || payload == token):
				select {
				case w.woken <- struct{}{}:
				default:
				}
			}
		}
	}()
	timer := time.NewTimer(patience)
	defer timer.Stop()
	select {
	case <-subscribed:
	case <-w.done:
	case <-timer.C:
	}
	return w
}

// wait returns when woken, after d, or with ctx's error when it ends.
func (w *wakeups) wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-w.woken:
		return nil
	case <-timer.C:
		return nil
	}
}

func (w *wakeups) close() {
	if w.conn != nil {
		w.conn.Close()
	}
	<-w.done
}
