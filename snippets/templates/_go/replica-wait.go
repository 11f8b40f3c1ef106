
// ReplicaWait is WaitForReplicas's setting; its zero values are the defaults.
type ReplicaWait struct {
	// Replicas that must acknowledge the acquire (WAIT numreplicas); 0: 1.
	Replicas int
	// Timeout is how long the server waits for them, whole milliseconds shorter than the lease,
	// which the wait spends; 0: 100 ms.
	Timeout time.Duration
	// Fsync waits for the disk instead: WAITAOF 1 Replicas Timeout (the master's AOF and the
	// replicas' fsynced). Needs appendonly yes on them, and Redis or Valkey 7.2+.
	Fsync bool
	// OnShortfall, when set, keeps a lock the replicas did not acknowledge in time and is called
	// with the shortfall before Acquire returns; nil: the lock is released and Acquire returns a
	// *ReplicaShortfallError.
	OnShortfall func(ReplicaShortfall)
}

// ShortfallReason says why the replicas did not acknowledge an acquire.
type ShortfallReason string

const (
	// ShortfallTimeout: fewer than Replicas acknowledged within Timeout.
	ShortfallTimeout ShortfallReason = "timeout"
	// ShortfallConnectionLost: the connection closed after the acquire and before the wait answered.
	ShortfallConnectionLost ShortfallReason = "connection-lost"
	// ShortfallNoWaitAOF: Fsync on a server without WAITAOF.
	ShortfallNoWaitAOF ShortfallReason = "no-waitaof"
	// ShortfallAOFOff: Fsync on a master with appendonly no.
	ShortfallAOFOff ShortfallReason = "aof-off"
)

// ReplicaShortfall is an acquire the replicas did not acknowledge.
type ReplicaShortfall struct {
	Lock     string
	Reason   ShortfallReason
	Required int
	// Acknowledged is what WAIT answered (WAITAOF: its replica count); -1 when it gave no count.
	Acknowledged int
	// Fsync: the wait was WAITAOF; FsyncedLocally: the master's AOF has the acquire.
	Fsync, FsyncedLocally bool
	Timeout               time.Duration
}

func (s ReplicaShortfall) String() string {
	of := fmt.Sprintf("%d replica", s.Required)
	if s.Required != 1 {
		of += "s"
	}
	switch s.Reason {
	case ShortfallConnectionLost:
		return s.Lock + ": the connection closed before the replicas acknowledged the acquire (it may not have reached any)"
	case ShortfallNoWaitAOF:
		return s.Lock + ": WaitForReplicas Fsync needs WAITAOF, which this server does not have (Redis and Valkey 7.2+)"
	case ShortfallAOFOff:
		return s.Lock + ": WaitForReplicas Fsync needs appendonly yes on the master, which has it off"
	case ShortfallTimeout:
		if s.Fsync && !s.FsyncedLocally {
			of += " and not by the master"
		}
		if s.Fsync {
			return fmt.Sprintf("%s was fsynced by %d of %s within %d ms (WAITAOF)", s.Lock, s.Acknowledged, of, s.Timeout.Milliseconds())
		}
	}
	return fmt.Sprintf("%s was acknowledged by %d of %s within %d ms (WAIT)", s.Lock, s.Acknowledged, of, s.Timeout.Milliseconds())
}

// ErrReplicaShortfall matches (errors.Is) a ReplicaShortfallError.
var ErrReplicaShortfall = errors.New("replica shortfall")

// ReplicaShortfallError: the replicas did not acknowledge the acquire, which was given back
// (Released), or could not be: it then ends with its lease.
type ReplicaShortfallError struct {
	Shortfall ReplicaShortfall
	Released  bool
}

func (e *ReplicaShortfallError) Error() string {
	released, fix := "released", "Check the replicas (INFO replication: connected_slaves, their lag), or pass OnShortfall to keep such locks"
	if !e.Released {
		released = "could not be released (it ends with its lease)"
	}
	switch e.Shortfall.Reason {
	case ShortfallConnectionLost:
		fix = "The master may be failing over: try again once the client has reconnected"
	case ShortfallNoWaitAOF, ShortfallAOFOff:
		fix = "Turn Fsync off (WAIT alone covers a failover) or enable the AOF"
	}
	return fmt.Sprintf("%v: %s, not held. %s", e.Shortfall, released, fix)
}

func (e *ReplicaShortfallError) Is(target error) bool { return target == ErrReplicaShortfall }

// check fills the defaults and checks the values against the lease, before anything is sent.
func (w *ReplicaWait) check(ttl time.Duration) error {
	if w.Replicas == 0 {
		w.Replicas = 1
	}
	if w.Timeout == 0 {
		w.Timeout = 100 * time.Millisecond
	}
	switch {
	case w.Replicas < 1:
		return fmt.Errorf("locksmith: WaitForReplicas Replicas must be at least 1, got %d", w.Replicas)
	case w.Timeout < time.Millisecond || w.Timeout%time.Millisecond != 0:
		return fmt.Errorf("locksmith: WaitForReplicas Timeout must be a whole number of milliseconds, at least 1, got %v", w.Timeout)
	case w.Timeout >= ttl:
		return fmt.Errorf("locksmith: WaitForReplicas Timeout (%v) must be shorter than the lease (%v): the wait spends it", w.Timeout, ttl)
	}
	return nil
}

// command is the wait that follows the acquire in its pipeline.
func (w *ReplicaWait) command() (string, []interface{}) {
	if w.Fsync {
		return "WAITAOF", []interface{}{1, w.Replicas, w.Timeout.Milliseconds()}
	}
	return "WAIT", []interface{}{w.Replicas, w.Timeout.Milliseconds()}
}

// took is whether an acquire script's reply (acquire's integer, acquire_queued's array) took the lock.
func took(reply interface{}) bool {
	if replies, ok := reply.([]interface{}); ok && len(replies) > 0 {
		reply = replies[0]
	}
	taken, ok := reply.(int64)
	return ok && taken != 0
}

// acknowledgements reads the wait's reply: WAIT's count of replicas, or WAITAOF's [local, replicas].
func (w *ReplicaWait) acknowledgements(waited interface{}) (local, replicas int64, ok bool) {
	if !w.Fsync {
		replicas, ok = waited.(int64)
		return 1, replicas, ok
	}
	if counts, isArray := waited.([]interface{}); isArray && len(counts) == 2 {
		local, ok = counts[0].(int64)
		replicas, isCount := counts[1].(int64)
		return local, replicas, ok && isCount
	}
	return 0, 0, false
}

// shortfall is a shortfall of key's acquire for reason, with no count.
func (w *ReplicaWait) shortfall(key string, reason ShortfallReason) ReplicaShortfall {
	return ReplicaShortfall{Lock: key, Reason: reason, Required: w.Replicas, Acknowledged: -1, Fsync: w.Fsync, Timeout: w.Timeout}
}

// unanswered is the outcome of a pair whose connection failed before the acquire's reply: it may
// have taken the lock, which is given back whatever OnShortfall says (a lock not known to be held
// cannot be kept).
func (w *ReplicaWait) unanswered(key string, release func() error) error {
	return &ReplicaShortfallError{Shortfall: w.shortfall(key, ShortfallConnectionLost), Released: release() == nil}
}

// settle decides an acquire that took the lock by the wait's reply or error (lost: the
// connection failed before it answered): nil when the replicas acknowledged it, or when
// OnShortfall keeps it; else the lock is given back and the error says why.
func (w *ReplicaWait) settle(key string, waited interface{}, waitErr error, lost bool, release func() error) error {
	shortfall := w.shortfall(key, ShortfallTimeout)
	switch {
	case lost:
		shortfall.Reason = ShortfallConnectionLost
	case waitErr != nil && strings.HasPrefix(waitErr.Error(), "ERR unknown command"):
		shortfall.Reason = ShortfallNoWaitAOF
	case waitErr != nil && strings.Contains(waitErr.Error(), "appendonly is disabled"):
		shortfall.Reason = ShortfallAOFOff
	case waitErr != nil:
		release() // the wait failed otherwise (an ACL that denies it): not held, and the error as it is
		return waitErr
	default:
		local, acknowledged, ok := w.acknowledgements(waited)
		if !ok {
			release()
			return fmt.Errorf("locksmith: the wait replied %v, not a count of replicas", waited)
		}
		if local >= 1 && acknowledged >= int64(w.Replicas) {
			return nil
		}
		shortfall.Acknowledged, shortfall.FsyncedLocally = int(acknowledged), w.Fsync && local >= 1
	}
	// A setting the server cannot honour is released whatever OnShortfall says.
	if w.OnShortfall != nil && shortfall.Reason != ShortfallNoWaitAOF && shortfall.Reason != ShortfallAOFOff {
		w.OnShortfall(shortfall)
		return nil
	}
	return &ReplicaShortfallError{Shortfall: shortfall, Released: release() == nil}
}

// giveBack is how a shortfall gives the lock back: the lease's Release (taken in line: waking the next).
func giveBack(lease *Lease) func() error {
	return func() error {
		_, err := lease.Release(context.Background())
		return err
	}
}
