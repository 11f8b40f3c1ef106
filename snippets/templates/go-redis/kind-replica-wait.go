«include:_go/replica-wait-options»
«section:attempt»
	if o.replicas != nil {
		if scripts, err = replicatedOn(client, key, o.replicas, giveBack(lease)); err != nil {
			return nil, err
		}
	}
«section:code»
«include:_go/replica-wait»

// replicated is what the attempts of an Acquire with WaitForReplicas run on: each EVALSHA or
// EVAL goes in one pipeline with the wait, on one connection to the lock's master
// (WAIT counts the replicas that have that connection's writes). It takes a *redis.Client,
// *redis.Conn or *redis.ClusterClient (whose pipelines go to one node), with a ReadTimeout
// (3 s by default) longer than the wait.
type replicated struct {
	redis.Scripter
	key     string
	wait    *ReplicaWait
	release func() error
}

func replicatedOn(client redis.Scripter, key string, wait *ReplicaWait, release func() error) (redis.Scripter, error) {
	switch client.(type) {
	case *redis.Client, *redis.Conn, *redis.ClusterClient:
		return replicated{client, key, wait, release}, nil
	}
	return nil, fmt.Errorf("locksmith: WaitForReplicas needs a *redis.Client, *redis.Conn or *redis.ClusterClient, got %T", client)
}

// sentSource holds the SHA1s of the scripts this process has sent in a pair with their source.
var sentSource sync.Map

// notSentYet answers a script's first EvalSha in this process without sending it, so that
// Script.Run sends the source (EVAL): a WAIT behind an EVALSHA refused with NOSCRIPT would wait its
// timeout out for nothing.
type notSentYet struct{}

func (notSentYet) Error() string { return "NOSCRIPT this process sends the script's source first" }
func (notSentYet) RedisError()   {}

func (r replicated) EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *redis.Cmd {
	if _, sent := sentSource.Load(sha1); !sent {
		unsent := redis.NewCmd(ctx)
		unsent.SetErr(notSentYet{})
		return unsent
	}
	return r.pipelined(ctx, func(pipe redis.Pipeliner) *redis.Cmd { return pipe.EvalSha(ctx, sha1, keys, args...) })
}

func (r replicated) Eval(ctx context.Context, script string, keys []string, args ...interface{}) *redis.Cmd {
	sentSource.Store(redis.NewScript(script).Hash(), true)
	return r.pipelined(ctx, func(pipe redis.Pipeliner) *redis.Cmd { return pipe.Eval(ctx, script, keys, args...) })
}

// A Cluster's redirections of the pair: how many are followed, and the pause for the slot map.
const (
	maxRedirections  = 3
	redirectionPause = 100 * time.Millisecond
)

// pipelined sends the acquire and the wait. In a Cluster they go to the master of the lock's
// slot; a redirection of the acquire means nothing was written there: with the slot map
// reloaded, both go again.
func (r replicated) pipelined(ctx context.Context, acquire func(redis.Pipeliner) *redis.Cmd) *redis.Cmd {
	for redirections := 0; ; redirections++ {
		var pipe redis.Pipeliner
		switch client := r.Scripter.(type) {
		case *redis.ClusterClient:
			master, err := client.MasterForKey(ctx, r.key)
			if err != nil {
				failed := redis.NewCmd(ctx)
				failed.SetErr(err)
				return failed
			}
			pipe = master.Pipeline()
		case *redis.Conn:
			pipe = client.Pipeline()
		case *redis.Client:
			pipe = client.Pipeline()
		}
		taken := acquire(pipe)
		name, args := r.wait.command()
		waited := pipe.Do(ctx, append([]interface{}{name}, args...)...)
		pipe.Exec(ctx) // each command has its reply or error
		cluster, isCluster := r.Scripter.(*redis.ClusterClient)
		if isCluster && redirections < maxRedirections && redirected(taken.Err()) {
			cluster.ReloadState(ctx)
			time.Sleep(redirectionPause)
			continue
		}
		var serverErr redis.Error
		if err := taken.Err(); err != nil && !errors.As(err, &serverErr) {
			// The connection failed (go-redis then fails every command of the pipeline, retries
			// spent): the acquire may have taken the lock.
			taken.SetErr(r.wait.unanswered(r.key, r.release))
			return taken
		}
		if taken.Err() != nil || !took(taken.Val()) {
			return taken
		}
		lost := waited.Err() != nil && !errors.As(waited.Err(), &serverErr)
		if err := r.wait.settle(r.key, waited.Val(), waited.Err(), lost, r.release); err != nil {
			taken.SetErr(err)
		}
		return taken
	}
}

// redirected: a Cluster error that says the node did not run the command.
func redirected(err error) bool {
	if err == nil {
		return false
	}
	switch strings.SplitN(err.Error(), " ", 2)[0] {
	case "MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN":
		return true
	}
	return false
}
