«section:imports»
«esm:import { Batch, ClusterBatch } from '@valkey/valkey-glide';»
«cjs:const { Batch, ClusterBatch } = require('@valkey/valkey-glide');»
«esm:import { createHash } from 'node:crypto';»
«cjs:const { createHash } = require('node:crypto');»
«section:lock-options»
  /** Held only once replicas have it: WAIT (or WAITAOF) in one pipeline with the acquire; a shortfall gives it back. */
  waitForReplicas?: WaitForReplicas;
«section:types»
«include:_js/replica-wait-types»
«section:acquire-send»
  if (options.waitForReplicas) send = replicated(replicaWait(options.waitForReplicas, ttlMs));
«section:code»
«include:_js/replica-wait»

/**
 * The script and the wait in one non-atomic batch (a pipeline, not MULTI/EXEC, inside which WAIT
 * cannot block), on the one connection GLIDE keeps to the node: on a cluster the whole batch is
 * routed to the master of the script's key (WAIT has none). Errors come back in the replies
 * (raiseOnError false): [the script's reply, the wait's error, its reply]. NOSCRIPT sends both
 * again with the source. GLIDE's request timeout (250 ms by default) would cut a longer WAIT: the
 * batch gets the wait's timeout and a second more.
 */
async function pipelineWait(client«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]», command«ts:: (string | number)[]»)«ts:: Promise<[unknown, unknown, unknown]>» {
  const keysAndArgs = [String(keys.length), ...keys, ...args.map(String)];
  const timeout = Number(command.at(-1)) + 1000;
  for (let withSource = false; ; withSource = true) {
    const script = withSource ? ['EVAL', SCRIPTS[name]] : ['EVALSHA', createHash('sha1').update(SCRIPTS[name]).digest('hex')];
    const attempt = [...script, ...keysAndArgs];
    const wait = command.map(String);
    let replies;
    try {
      replies =
        client instanceof GlideClusterClient
          ? await client.exec(new ClusterBatch(false).customCommand(attempt).customCommand(wait), false, { route: { type: 'primarySlotKey', key: keys[0] ?? '' }, timeout })
          : await client.exec(new Batch(false).customCommand(attempt).customCommand(wait), false, { timeout });
    } catch (error) {
      return [undefined, error, undefined]; // the connection failed: the script's reply is unknown
    }
    const [reply, waited] = replies ?? [];
    if (!(reply instanceof Error)) return waited instanceof Error ? [reply, serverError(waited), undefined] : [reply, null, waited];
    if (withSource || !/NoScript/i.test(reply.message)) throw reply;
  }
}

/**
 * GLIDE reports a server's error as "An error was signalled by the server: - ResponseError: unknown
 * command ...", its code (ERR) left out: put back, so the wait's error reads as the server sent it.
 * Any other error is the connection's.
 */
function serverError(error«ts:: Error»)«ts:: Error» {
  const signalled = /^An error was signalled by the server: - (\w+): ([\s\S]*)$/.exec(error.message);
  if (signalled === null) return error;
  const [, kind = '', text = ''] = signalled;
  const code = kind === 'ResponseError' ? 'ERR' : kind.replace(/Error$/, '').toUpperCase();
  return new Error(`${code} ${text}`, { cause: error });
}
«section:exports»
  ReplicaShortfallError,
