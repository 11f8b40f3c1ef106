// kind is a kind of lock: the scripts that extend and release it, and who holds it when it is busy.
type kind struct {
	extend, release *redis.Script
	holders         string
}

var (
	plainKind    = kind{extendScript, releaseScript, "another owner"}
	ErrBusy      = errors.New("lock busy")  // errors.Is(err, ErrBusy) for a *BusyError
	ErrLeaseLost = errors.New("lease lost") // errors.Is(err, ErrLeaseLost) for a *LeaseLostError
)

// BusyError: the lock stayed held (by Holders) for the whole wait.
type BusyError struct {
	Key, Holders string
	Waited       time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is held by %s; gave up after waiting %d ms", e.Key, e.Holders, e.Waited.Milliseconds())
}
func (e *BusyError) Unwrap() error { return ErrBusy }

// LeaseLostError: the lease ended while its holder relied on it (taken, expired, or Err).
type LeaseLostError struct {
	Key, Why string
	Err      error
}

func (e *LeaseLostError) Error() string   { return fmt.Sprintf("lease on %s lost: %s", e.Key, e.Why) }
func (e *LeaseLostError) Unwrap() []error { return []error{ErrLeaseLost, e.Err} }

type options struct {
	wait, retry time.Duration
	fence       []string // the fence key, if any
	renew       bool
	only        string // the name of an option given that only the plain lock's Acquire takes
«kinds:options-fields»
}

// Option configures an acquire.
type Option func(*options)

// WaitFor sets how long to wait for another holder to let go, then a BusyError (default 10 s; 0: try once).
func WaitFor(wait time.Duration) Option { return func(o *options) { o.wait = wait } }

// RetryEvery sets the longest sleep between two tries while waiting, jittered down to half (default 500 ms).
func RetryEvery(retry time.Duration) Option { return func(o *options) { o.retry = retry } }

// Renew extends the lease every ttl/3 until Release; Lost() is closed when a renewal fails.
func Renew() Option { return func(o *options) { o.renew = true } }

// Fence makes Acquire return a fencing token (Lease.Fence) growing with every holder; {hash tag} as the lock's.
func Fence(key string) Option { return func(o *options) { o.fence, o.only = []string{key}, "Fence" } }
«kinds:options»

// Lease is a held lock: Token is the key's value (or member) while held, Fence its fencing token (Fence).
type Lease struct {
	Key, Token string
	Fence      int64
«kinds:lease-fields»

	client        «var:client»
	kind          kind
	ttl           time.Duration
	lost, stopped context.Context // done once the lease is lost (cause: a *LeaseLostError), once Release began
	lose          context.CancelCauseFunc
	stop          context.CancelFunc
	renewing      sync.WaitGroup
«kinds:lease-state»
}

func configure(ttl time.Duration, opts []Option) (options, string, error) {
	o, random := options{wait: 10 * time.Second, retry: 500 * time.Millisecond}, make([]byte, 8)
	for _, opt := range opts {
		opt(&o)
	}
	_, err := rand.Read(random)
	switch {
	case o.wait < 0:
		err = fmt.Errorf("locksmith: WaitFor must not be negative, got %v", o.wait)
	case o.retry < time.Millisecond:
		err = fmt.Errorf("locksmith: RetryEvery must be at least 1 ms, got %v", o.retry)
	case ttl < time.Millisecond || ttl%time.Millisecond != 0:
		err = fmt.Errorf("locksmith: ttl must be a whole number of milliseconds, at least 1, got %v", ttl)
«kinds:configure»
	}
	host, _ := os.Hostname()
	return o, fmt.Sprintf("%s:%d:%x", host, os.Getpid(), random), err
}

// take runs try (reply 0: busy; PTTL -1: unknown) until WaitFor ends, sleeping min(wait left, jittered retry, PTTL + 1 ms).
func take(ctx context.Context, client «var:client», key, token string, o options, try func() (int64, int64, error)) (int64, error) {
	deadline, sleep := time.Now().Add(o.wait), pause
	reply, pttl, err := try()
«kinds:take»
	for err == nil && reply == 0 && time.Now().Before(deadline) {
		if pttl == -1 {
			pttl = leaseLeft(ctx, client, key)
		}
		nap := min(time.Until(deadline), o.retry/2+time.Duration(mathrand.Int63n(int64(o.retry/2)+1)))
		if pttl != -1 { // -1 still: no expiry
			nap = min(nap, time.Duration(pttl+1)*time.Millisecond)
		}
		if err = sleep(ctx, nap); err == nil {
			reply, pttl, err = try()
		}
	}
	return reply, err
}

func pause(ctx context.Context, d time.Duration) error {
	napping, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	<-napping.Done()
	return ctx.Err() // nil after d, unless ctx ended first
}

// Acquire takes the lock with a lease of ttl (whole ms, at least 1), waiting up to WaitFor, then a BusyError.
func Acquire(ctx context.Context, client «var:client», key string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, token, err := configure(ttl, opts)
	if err != nil {
		return nil, err
	}
«kinds:acquire»
	lease, keys, scripts := newLease(client, plainKind, key, token, ttl), append([]string{key}, o.fence...), client
	try := func() (int64, int64, error) {
		reply, err := run(ctx, scripts, acquireScript, keys, token, ttl.Milliseconds())
		return reply, -1, err
	}
«kinds:attempt»
	reply, err := take(ctx, client, key, token, o, try)
«kinds:acquired»
	switch {
	case err != nil:
		return nil, err
	case reply == 0:
		return nil, &BusyError{Key: key, Waited: o.wait, Holders: plainKind.holders}
	case o.fence != nil:
		lease.Fence = reply
	}
	return lease.held(o.renew), nil
}

// TryAcquire tries once, never waiting: the lease and true, or nil and false while another holds it.
func TryAcquire(ctx context.Context, client «var:client», key string, ttl time.Duration, opts ...Option) (*Lease, bool, error) {
	lease, err := Acquire(ctx, client, key, ttl, append(opts, WaitFor(0))...)
	if errors.Is(err, ErrBusy) {
		return nil, false, nil
	}
	return lease, err == nil, err
}

func newLease(client «var:client», k kind, key, token string, ttl time.Duration) *Lease {
	lost, lose := context.WithCancelCause(context.Background())
	stopped, stop := context.WithCancel(context.Background())
	return &Lease{Key: key, Token: token, client: client, kind: k, ttl: ttl, lost: lost, lose: lose, stopped: stopped, stop: stop}
}

func (l *Lease) held(renew bool) *Lease {
	if renew {
		l.renewing.Add(1)
		go l.renew()
	}
	return l
}

// Lost is closed when a renewal finds the lease gone or fails: stop writing.
func (l *Lease) Lost() <-chan struct{} { return l.lost.Done() }

// Err is nil while the lease is held as far as renewal knows, else a *LeaseLostError.
func (l *Lease) Err() error { return context.Cause(l.lost) }

// Extend sets the lease to ttl from now; false when it is no longer held.
func (l *Lease) Extend(ctx context.Context, ttl time.Duration) (bool, error) {
	if _, _, err := configure(ttl, nil); err != nil { // Acquire's ttl check
		return false, err
	}
«kinds:extend»
	held, err := run(ctx, l.client, l.kind.extend, []string{l.Key}, l.Token, ttl.Milliseconds())
	return held == 1, err
}

// Release stops renewing and gives the lock back: false when it no longer held it (or, failing, ends with its lease).
func (l *Lease) Release(ctx context.Context) (bool, error) {
	if l.stopped.Err() != nil {
		return false, nil // a second Release (one racing the first finds the lock gone: false too)
	}
	l.stop()
	l.renewing.Wait() // a renewal in flight ends before the release
«kinds:release»
	keys := []string{l.Key}
«kinds:release-keys»
	held, err := run(ctx, l.client, l.kind.release, keys, l.Token)
	return held != 0, err
}

func (l *Lease) renew() {
	defer l.renewing.Done()
	for pause(l.stopped, l.ttl/3) == nil && l.lost.Err() == nil {
		if held, err := l.Extend(context.Background(), l.ttl); err != nil {
			l.lose(&LeaseLostError{Key: l.Key, Why: "renewal failed, it may expire unseen: " + err.Error(), Err: err})
		} else if !held {
			l.lose(&LeaseLostError{Key: l.Key, Why: "taken by another owner or expired"})
		}
	}
}
