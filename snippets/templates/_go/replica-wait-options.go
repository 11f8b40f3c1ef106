«section:strings-import»
«include-once:_go/import-strings»
«section:options-fields»
	replicas    *ReplicaWait
«section:options»

// WaitForReplicas makes Acquire count the lock as held only once replicas acknowledged it: the
// acquire and WAIT (WAITAOF with Fsync) go in one pipeline on one connection to the lock's
// master. A shortfall gives the lock back and returns a *ReplicaShortfallError (or OnShortfall
// keeps it). The connection's read timeout must be longer than the wait.
func WaitForReplicas(wait ReplicaWait) Option {
	return func(o *options) { o.replicas, o.only = &wait, "WaitForReplicas" }
}
«section:configure»
	case o.replicas != nil: // its wait is checked against a valid lease
		err = o.replicas.check(ttl)
