// kind is a kind of lock: the scripts that extend and release it, and who holds it when it is busy.
type kind struct {
	extend, release *redis.Script
	holders         string
}

var plainKind = kind{extendScript, releaseScript, "another owner"}

// ErrBusy matches (errors.Is) a BusyError; ErrLeaseLost a LeaseLostError.
var (
	ErrBusy      = errors.New("lock busy")
	ErrLeaseLost = errors.New("lease lost")
)

// BusyError: the lock stayed held for the whole wait (by Holders).
type BusyError struct {
	Key     string
	Waited  time.Duration
	Holders string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is held by %s; gave up after waiting %d ms", e.Key, e.Holders, e.Waited.Milliseconds())
}

func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// LeaseLostError: the lease ended while the holder still relied on it (taken by another owner,
// expired, or not renewable); Err is the Redis error where there was one.
type LeaseLostError struct {
	Key string
	Why string
	Err error
}

func (e *LeaseLostError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("lease on %s lost: %s: %v", e.Key, e.Why, e.Err)
	}
	return fmt.Sprintf("lease on %s lost: %s", e.Key, e.Why)
}

func (e *LeaseLostError) Is(target error) bool { return target == ErrLeaseLost }
func (e *LeaseLostError) Unwrap() error        { return e.Err }

type options struct {
	wait     time.Duration
	retry    time.Duration
	fenceKey string
	renew    bool
	plainOpt string // the name of an option given that only the plain lock's Acquire takes
«kinds:options-fields»
}

// Option configures an acquire.
type Option func(*options)

// WaitFor sets how long to wait for another holder to let go before a BusyError
// (default 10 s; 0: try once).
func WaitFor(wait time.Duration) Option { return func(o *options) { o.wait = wait } }

// RetryEvery sets the longest sleep between two tries while waiting, jittered down to half
// (default 500 ms): how late a waiter that missed its wake-up is, at most.
func RetryEvery(retry time.Duration) Option { return func(o *options) { o.retry = retry } }

// Fence makes Acquire return a fencing token (Lease.Fence) that grows with every new holder.
// In Cluster the fence key needs the lock key's {hash tag}.
func Fence(key string) Option { return func(o *options) { o.fenceKey, o.plainOpt = key, "Fence" } }

// Renew extends the lease every ttl/3 until Release; Lost() is closed when a renewal fails.
func Renew() Option { return func(o *options) { o.renew = true } }
«kinds:options»

// Lease is a held lock.
type Lease struct {
	Key string
	// Token is this holder's owner token: the lock key's value (or its member's name) while it is held.
	Token string
	// Fence is the fencing token with the Fence option (0 without): the guarded resource refuses older ones.
	Fence int64
«kinds:lease-fields»

	client   «var:client»
	kind     kind
	queue    string
	ttl      time.Duration
	lost     chan struct{}
	lostErr  error
	mu       sync.Mutex
	released bool
	stop     chan struct{}
	renewing sync.WaitGroup
}

var jitter = struct {
	sync.Mutex
	*mathrand.Rand
}{Rand: mathrand.New(mathrand.NewSource(time.Now().UnixNano()))}

func newToken() (string, error) {
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(random)), nil
}

func checkTTL(ttl time.Duration) error {
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
	}
	return nil
}

func configure(ttl time.Duration, opts []Option) (options, error) {
	o := options{wait: 10 * time.Second, retry: 500 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case o.wait < 0:
		return o, fmt.Errorf("locksmith: WaitFor must not be negative, got %v", o.wait)
	case o.retry < time.Millisecond:
		return o, fmt.Errorf("locksmith: RetryEvery must be at least 1 ms, got %v", o.retry)
«kinds:configure»
	}
	return o, checkTTL(ttl)
}

// attempt is one try: the script's reply (0: not taken) and, when the script says, how long the
// holder's lease has left (negative: unknown).
type attempt func() (reply int64, leaseLeft time.Duration, err error)

// take tries; while the lock is held and WaitFor lasts, subscribes to its wake-ups, tries again
// (a release may have gone out before the subscription), then sleeps until woken, until the
// holder's lease ends or for the jittered retry bound, and tries again. The last reply.
func take(ctx context.Context, client «var:client», key, token string, o options, try attempt) (int64, error) {
	deadline := time.Now().Add(o.wait)
	reply, _, err := try()
	if err != nil || reply != 0 || o.wait == 0 {
		return reply, err
	}
	w := listen(ctx, client, key, token, o.retry)
	defer w.close()
	for {
		reply, leaseLeft, err := try()
		left := time.Until(deadline)
		if err != nil || reply != 0 || left <= 0 {
			return reply, err
		}
		jitter.Lock()
		sleep := o.retry/2 + time.Duration(jitter.Int63n(int64(o.retry/2)+1))
		jitter.Unlock()
		if left < sleep {
			sleep = left
		}
		if leaseLeft >= 0 && leaseLeft < sleep {
			sleep = leaseLeft
		}
		if err := w.wait(ctx, sleep); err != nil {
			return 0, err
		}
	}
}

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

// Acquire takes the lock with a lease of ttl (whole milliseconds, at least 1), waiting up to
// WaitFor in line (first come, first served) for the release to wake it, then a BusyError.
// Redis errors are returned as they are; ctx cancels the wait.
func Acquire(ctx context.Context, client «var:client», key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, err := configure(ttl, opts)
	if err != nil {
		return nil, err
	}
«kinds:acquire»
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	keys := []string{key}
	if o.fenceKey != "" {
		keys = append(keys, o.fenceKey)
	}
	queue, scripts := "", client // scripts: what the attempts run on
	if o.wait > 0 && canQueue(client) {
		queue = waitersKey(key)
	}
	try := func() (int64, time.Duration, error) {
		reply, err := run(ctx, scripts, acquireScript, keys, token, ttl.Milliseconds())
		return reply, -1, err
	}
	if queue != "" {
		// In line: the release takes the first waiter off the queue and wakes exactly that one.
		queued := append([]string{key, queue}, keys[1:]...)
		queueMs := (o.wait + 2*o.retry).Milliseconds()
		try = func() (int64, time.Duration, error) {
			reply, err := runQueued(ctx, scripts, queued, token, ttl.Milliseconds(), queueMs)
			if err != nil || len(reply) < 2 {
				return 0, -1, err
			}
			leaseLeft := time.Duration(reply[1]) * time.Millisecond
			if reply[1] == -2 {
				leaseLeft = 0
			}
			return reply[0], leaseLeft, nil
		}
	}
«kinds:attempt»
	reply, err := take(ctx, client, key, token, o, try)
	if reply == 0 && queue != "" {
		leaveLine(client, queue, token) // failing that, the queue ends by itself
	}
	if err != nil {
		return nil, err
	}
	if reply == 0 {
		return nil, &BusyError{Key: key, Waited: o.wait, Holders: plainKind.holders}
	}
	lease := newLease(client, plainKind, key, token, ttl, o.renew, queue)
	if o.fenceKey != "" {
		lease.Fence = reply
	}
	return lease, nil
}

// TryAcquire tries once and never waits: the lease and true, or nil and false while another
// holder has the lock (WaitFor is ignored). Redis errors are returned as they are.
func TryAcquire(ctx context.Context, client «var:client», key string, ttl time.Duration, opts ...Option) (*Lease, bool, error) {
	lease, err := Acquire(ctx, client, key, ttl, append(opts, WaitFor(0))...)
	if errors.Is(err, ErrBusy) {
		return nil, false, nil
	}
	return lease, err == nil, err
}

func newLease(client «var:client», k kind, key, token string, ttl time.Duration, renew bool, queue string) *Lease {
	lease := &Lease{Key: key, Token: token, client: client, kind: k, queue: queue, ttl: ttl, lost: make(chan struct{}), stop: make(chan struct{})}
	if renew {
		lease.renewing.Add(1)
		go lease.renew()
	}
	return lease
}

// Lost is closed when a renewal finds the lease gone or fails: stop writing.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err is nil while the lease is held as far as renewal knows, else a *LeaseLostError.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr
}

// Extend sets the lease to ttl from now; false when it is no longer held.
func (l *Lease) Extend(ctx context.Context, ttl time.Duration) (bool, error) {
«kinds:extend»
	return extend(ctx, l.client, l.kind.extend, l.Key, l.Token, ttl)
}

// extend runs a kind's extend script: true while token holds key, whose lease is now ttl.
func extend(ctx context.Context, client «var:client», script *redis.Script, key, token string, ttl time.Duration) (bool, error) {
	if err := checkTTL(ttl); err != nil {
		return false, err
	}
	held, err := run(ctx, client, script, []string{key}, token, ttl.Milliseconds())
	return held == 1, err
}

// Release stops renewing and gives the hold back if this lease still has it, waking waiters;
// false when it no longer did. If it fails, the hold ends with its lease.
func (l *Lease) Release(ctx context.Context) (bool, error) {
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return false, nil
	}
	l.released = true
	close(l.stop)
	l.mu.Unlock()
	l.renewing.Wait() // a renewal in flight ends before the release
«kinds:release»
	keys := []string{l.Key}
	if l.queue != "" {
		keys = append(keys, l.queue) // taken in line: wake the next in line
	}
	held, err := run(ctx, l.client, l.kind.release, keys, l.Token)
	return held != 0, err
}

func (l *Lease) renew() {
	defer l.renewing.Done()
	ticker := time.NewTicker(l.ttl / 3)
	defer ticker.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ticker.C:
			held, err := l.Extend(context.Background(), l.ttl)
			switch {
			case err != nil:
				l.lose(&LeaseLostError{Key: l.Key, Why: "renewal failed, it may expire unseen", Err: err})
				return
			case !held:
				l.lose(&LeaseLostError{Key: l.Key, Why: "taken by another owner or expired"})
				return
			}
		}
	}
}

func (l *Lease) lose(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lostErr = err
	close(l.lost)
}
