«section:std-imports»
	"sort"
«section:strings-import»
«include-once:_go/import-strings»
«section:lease-fields»
	// Keys are a multi-key lease's lock keys (AcquireMulti), in the order taken; nil for another lease.
	Keys   []string
	groups [][]string // Keys by hash slot: what each multi script call takes
«section:extend»
	if l.kind == multiKind {
		return l.onEveryKey(ctx, multiExtendScript, l.Token, ttl.Milliseconds())
	}
«section:release»
	if l.kind == multiKind {
		return l.onEveryKey(ctx, multiReleaseScript, l.Token)
	}
«section:code»

// multiKind is a multi-key lease's: its Extend and Release act on every key.
var multiKind = kind{multiExtendScript, multiReleaseScript, "another owner"}

// onEveryKey runs a multi-key lease's extend or release slot by slot: true when the token held
// every key. A failed call does not stop the others (a release frees what it can); the first error.
func (l *Lease) onEveryKey(ctx context.Context, script *redis.Script, args ...interface{}) (bool, error) {
	var held int64
	var first error
	for _, group := range l.groups {
		n, err := run(ctx, l.client, script, group, args...)
		held += n
		if first == nil {
			first = err
		}
	}
	return held == int64(len(l.Keys)), first
}

// AcquireMulti takes every lock in keys, all or none (the "move money between two accounts"
// lock), under one token with a lease of ttl, waiting up to WaitFor, then a BusyError naming a
// busy key. Keys in one hash slot (on one server: all of them) are taken in one call
// (multi_acquire); across a Cluster's slots, slot by slot in one fixed order (slot, then key
// bytes), and on a busy key the slots taken are given back before it waits for that key's
// release, its lease's end or the jittered retry bound: no caller waits holding part of its keys,
// so overlapping key sets cannot deadlock. The lease's Extend and Release act on every key and
// are true only when the token still held them all. Options: WaitFor, RetryEvery, Renew.
func AcquireMulti(ctx context.Context, client «var:client», keys []string, ttl time.Duration, opts ...Option) (*Lease, error) {
	o, token, err := configure(ttl, opts)
	if err != nil {
		return nil, err
	}
	if o.only != "" {
		return nil, fmt.Errorf("locksmith: %s works with Acquire only", o.only)
	}
	groups, err := multiGroups(client, keys)
	if err != nil {
		return nil, err
	}
	busy, err := takeEvery(ctx, client, groups, token, ttl, o)
	if err != nil {
		return nil, err
	}
	if busy != "" {
		return nil, &BusyError{Key: busy, Waited: o.wait, Holders: multiKind.holders}
	}
	var taken []string
	for _, group := range groups {
		taken = append(taken, group...)
	}
	lease := newLease(client, multiKind, strings.Join(taken, ", "), token, ttl)
	lease.Keys, lease.groups = taken, groups
	return lease.held(o.renew), nil
}

// TryAcquireMulti tries once and never waits: the lease and true, or nil and false while a key is
// held by another owner (none taken; WaitFor is ignored). Redis errors are returned as they are.
func TryAcquireMulti(ctx context.Context, client «var:client», keys []string, ttl time.Duration, opts ...Option) (*Lease, bool, error) {
	lease, err := AcquireMulti(ctx, client, keys, ttl, append(opts, WaitFor(0))...)
	if errors.Is(err, ErrBusy) {
		return nil, false, nil
	}
	return lease, err == nil, err
}

// multiGroups checks keys (one or more, none empty, none twice) and orders them by bytes, in
// groups of one hash slot (slotGroups).
func multiGroups(client «var:client», keys []string) ([][]string, error) {
	if len(keys) == 0 {
		return nil, errors.New("locksmith: AcquireMulti needs one or more lock keys, got none")
	}
	ordered := append([]string(nil), keys...)
	sort.Strings(ordered)
	for i, key := range ordered {
		switch {
		case key == "":
			return nil, errors.New("locksmith: AcquireMulti got an empty lock key")
		case i > 0 && key == ordered[i-1]:
			return nil, fmt.Errorf("locksmith: AcquireMulti got the lock key %q twice: give each key once", key)
		}
	}
	return slotGroups(client, ordered)
}

// takeEvery takes every key (takeAll), waiting up to WaitFor as Acquire does (take): for the busy
// key's release, its lease's end or the jittered retry bound. A try that finds another key busy
// ends that wait (2) for one on that key. "" once every key is held, else the last busy key.
func takeEvery(ctx context.Context, client «var:client», groups [][]string, token string, ttl time.Duration, o options) (string, error) {
	deadline := time.Now().Add(o.wait)
	busy, _, err := takeAll(ctx, client, groups, token, ttl)
	for err == nil && busy != "" && time.Now().Before(deadline) {
		waitingFor := busy
		o.wait = time.Until(deadline)
		_, err = take(ctx, client, waitingFor, token, o, func() (int64, int64, error) {
			var pttl int64
			var tried error
			busy, pttl, tried = takeAll(ctx, client, groups, token, ttl)
			switch {
			case tried != nil || busy == "":
				return 1, 0, tried
			case busy != waitingFor:
				return 2, 0, nil
			}
			return 0, pttl, nil
		})
	}
	return busy, err
}

// takeAll is one pass over the slots in order: "" when every key is held now, else a busy key and
// its holder's lease left in ms (-1: no TTL), the slots taken before it given back.
func takeAll(ctx context.Context, client «var:client», groups [][]string, token string, ttl time.Duration) (string, int64, error) {
	for taken, group := range groups {
		reply, err := multiAcquire(ctx, client, group, token, ttl.Milliseconds())
		if err == nil && len(reply) == 3 && reply[0] == 1 {
			continue
		}
		for _, back := range groups[:taken] {
			// A fresh context: ctx may be why; failing that, they end with their lease.
			run(context.Background(), client, multiReleaseScript, back, token)
		}
		switch {
		case err != nil:
			return "", 0, err
		case len(reply) != 3 || reply[1] < 1 || reply[1] > int64(len(group)):
			return "", 0, fmt.Errorf("locksmith: multi_acquire replied %v, not {0, key, lease}", reply)
		}
		return group[reply[1]-1], reply[2], nil
	}
	return "", 0, nil
}
