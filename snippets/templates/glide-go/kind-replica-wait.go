«section:imports»
«include-once:glide-go/import-glide»
«include-once:glide-go/import-config»
«section:imports-last»
	"github.com/valkey-io/valkey-glide/go/v2/pipeline"
«include:_go/replica-wait-options»
«section:attempt»
	if o.replicas != nil {
		if scripts, err = replicatedOn(client, key, o.replicas, giveBack(lease)); err != nil {
			return nil, err
		}
	}
«section:code»
«include:_go/replica-wait»

// replicated is what the attempts of an Acquire with WaitForReplicas run on: each script goes with
// the wait in one non-atomic GLIDE batch, on the one connection to the lock's master (WAIT counts
// the replicas that have that connection's writes); a *glide.ClusterClient's batch is routed whole
// to the primary of the lock's slot (unrouted, a keyless WAIT would go to every primary).
type replicated struct {
	Client
	key     string
	wait    *ReplicaWait
	release func() error
}

func replicatedOn(client Client, key string, wait *ReplicaWait, release func() error) (Client, error) {
	switch client.(type) {
	case *glide.Client, *glide.ClusterClient:
		return replicated{client, key, wait, release}, nil
	}
	return nil, fmt.Errorf("locksmith: WaitForReplicas needs a *glide.Client or *glide.ClusterClient, got %T", client)
}

// pairSlack is how much longer than the wait GLIDE gives the pair to answer: its 250 ms default
// request timeout would cut a longer wait.
const pairSlack = time.Second

// sentSource holds the SHA1s of the scripts this process has sent in a pair with their source: a
// script's first pair sends it with EVAL, as a WAIT behind an EVALSHA refused with NOSCRIPT would
// wait its timeout out for nothing.
var sentSource sync.Map

func (r replicated) InvokeScriptWithOptions(ctx context.Context, script redis.Script, o redis.ScriptOptions) (any, error) {
	hash, source := script.GetHash(), ""
	for known, text := range sources {
		if known.GetHash() == hash {
			source = text
		}
	}
	args := append([]string{fmt.Sprint(len(o.Keys))}, append(o.Keys, o.Args...)...)
	var replies []any
	var err error
	if _, sent := sentSource.Load(hash); sent {
		replies, err = r.pair(ctx, append([]string{"EVALSHA", hash}, args...))
	}
	if _, sent := sentSource.Load(hash); err == nil && (!sent || noScript(replies[0])) {
		sentSource.Store(hash, true)
		replies, err = r.pair(ctx, append([]string{"EVAL", source}, args...))
	}
	if err != nil {
		// The batch failed (the connection, or its timeout): the acquire may have taken the lock.
		return nil, r.wait.unanswered(r.key, r.release)
	}
	if failed := serverError(replies[0]); failed != nil {
		return nil, failed
	}
	if !took(replies[0]) {
		return replies[0], nil
	}
	waitErr := serverError(replies[1])
	if err := r.wait.settle(r.key, replies[1], waitErr, false, r.release); err != nil {
		return nil, err
	}
	return replies[0], nil
}

// pair sends the script and the wait in one batch, each reply read (raiseOnError false): a
// command's error is its reply.
func (r replicated) pair(ctx context.Context, script []string) ([]any, error) {
	name, waitArgs := r.wait.command()
	wait := []string{name}
	for _, arg := range waitArgs {
		wait = append(wait, fmt.Sprint(arg))
	}
	timeout := r.wait.Timeout + pairSlack
	var replies []any
	var err error
	switch client := r.Client.(type) {
	case *glide.Client:
		batch := pipeline.NewStandaloneBatch(false).CustomCommand(script).CustomCommand(wait)
		replies, err = client.ExecWithOptions(ctx, *batch, false, *pipeline.NewStandaloneBatchOptions().WithTimeout(timeout))
	case *glide.ClusterClient:
		batch := pipeline.NewClusterBatch(false).CustomCommand(script).CustomCommand(wait)
		route := config.NewSlotKeyRoute(config.SlotTypePrimary, r.key)
		replies, err = client.ExecWithOptions(ctx, *batch, false, *pipeline.NewClusterBatchOptions().WithTimeout(timeout).WithRoute(route))
	}
	if err == nil && len(replies) != 2 {
		err = fmt.Errorf("locksmith: the pair replied %v", replies)
	}
	return replies, err
}

// noScript: the server did not have the script (flushed, restarted, failed over).
func noScript(reply any) bool {
	failed, isErr := reply.(error)
	return isErr && strings.Contains(strings.ToLower(failed.Error()), "noscript")
}

// serverError is a batch reply's error as the server sent it: GLIDE gives "An error was signalled
// by the server: - ResponseError: unknown command ...", its kind of error for the server's code.
func serverError(reply any) error {
	failed, isErr := reply.(error)
	if !isErr {
		return nil
	}
	message := failed.Error()
	if _, signalled, found := strings.Cut(message, "signalled by the server: - "); found {
		message = signalled
	}
	kind, text, _ := strings.Cut(message, ": ")
	if code, known := serverCodes[kind]; known {
		return errors.New(code + " " + text)
	}
	return errors.New(message)
}

// serverCodes are the codes of GLIDE's kinds of server error.
var serverCodes = map[string]string{
	"ResponseError": "ERR", "NoScriptError": "NOSCRIPT", "BusyLoadingError": "LOADING", "ExecAbortError": "EXECABORT",
	"Moved": "MOVED", "Ask": "ASK", "TryAgain": "TRYAGAIN", "ClusterDown": "CLUSTERDOWN", "ReadOnly": "READONLY",
}
