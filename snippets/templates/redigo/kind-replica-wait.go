«include:_go/replica-wait-options»
«section:attempt»
	if o.replicas != nil {
		scripts = replicated{client, key, o.replicas, giveBack(lease)}
	}
«section:code»
«include:_go/replica-wait»

// replicated is the Pool the attempts of an Acquire with WaitForReplicas take their connection
// from: on it, each script (EVALSHA or EVAL) goes in one pipeline with the wait,
// as WAIT counts the replicas that have that connection's writes. The connection needs a read
// timeout (DialReadTimeout) longer than the wait, or none.
type replicated struct {
	Pool
	key     string
	wait    *ReplicaWait
	release func() error
}

func (r replicated) GetContext(ctx context.Context) (redis.Conn, error) {
	conn, err := r.Pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return replicatedConn{conn, r}, nil
}

type replicatedConn struct {
	redis.Conn
	replicated replicated
}

// sentSource holds the SHA1s of the scripts this process has sent in a pair with their source.
var sentSource sync.Map

// Do sends the script and the wait, and reads both replies. A script's first EVALSHA in this
// process is answered NOSCRIPT unsent, so that Script.Do sends the source (EVAL): a WAIT behind an
// EVALSHA refused with NOSCRIPT would wait its timeout out for nothing.
func (c replicatedConn) Do(command string, args ...interface{}) (interface{}, error) {
	if _, sent := sentSource.Load(args[0]); command == "EVALSHA" && !sent {
		return nil, redis.Error("NOSCRIPT this process sends the script's source first")
	}
	if command == "EVAL" {
		sentSource.Store(redis.NewScript(0, fmt.Sprint(args[0])).Hash(), true)
	}
	name, waitArgs := c.replicated.wait.command()
	c.Conn.Send(command, args...)
	c.Conn.Send(name, waitArgs...)
	var reply interface{}
	err := c.Conn.Flush()
	if err == nil {
		reply, err = c.Conn.Receive()
	}
	if _, serverErr := err.(redis.Error); err != nil && !serverErr {
		// The connection failed before the acquire's reply: it may have taken the lock.
		return nil, c.replicated.wait.unanswered(c.replicated.key, c.replicated.release)
	}
	waited, waitErr := c.Conn.Receive()
	if err != nil || !took(reply) {
		return reply, err
	}
	_, serverErr := waitErr.(redis.Error)
	if err := c.replicated.wait.settle(c.replicated.key, waited, waitErr, waitErr != nil && !serverErr, c.replicated.release); err != nil {
		return nil, err
	}
	return reply, nil
}
