«section:client»
  /** waitForReplicas: a batch sent back to back on one connection (execAsPipeline), not a transaction. */
  multi(): Batch;
«section:lock-options»
  /** Held only once replicas have it: WAIT (or WAITAOF) in one pipeline with the acquire; a shortfall gives it back. */
  waitForReplicas?: WaitForReplicas;
«section:types»
«include:_js/replica-wait-types»

/** What waitForReplicas needs of node-redis's multi(): on a client addCommand(args), on a cluster addCommand(firstKey, isReadonly, args). */
interface Batch {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): unknown;
  eval(script: string, options: { keys: string[]; arguments: string[] }): unknown;
  addCommand(...args: unknown[]): unknown;
  execAsPipeline(): Promise<unknown[]>;
}
«section:acquire-send»
  if (options.waitForReplicas) send = replicated(replicaWait(options.waitForReplicas, ttlMs));
«section:code»
«include:_js/replica-wait»

/**
 * The script and the wait in one pipeline on one connection: multi().execAsPipeline() writes them
 * back to back, without MULTI/EXEC (inside a transaction WAIT cannot block: it would answer at
 * once), on a cluster to the master of the script's key (WAIT has none). It rejects with the first
 * error alone, so an error leaves the script's reply unknown: [undefined, the error]. NOSCRIPT sends
 * both again with the source.
 */
async function pipelineWait(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]», command«ts:: (string | number)[]»)«ts:: Promise<[unknown, unknown, unknown]>» {
  const options = { keys, arguments: args.map(String) };
  const wait = command.map(String);
  for (let withSource = false; ; withSource = true) {
    const batch = redis.multi();
    if (withSource) batch.eval(SCRIPTS[name], options);
    else batch.evalSha(«ts:SHA1S[name] as string»«js:SHA1S[name]», options);
    if ('masters' in redis) batch.addCommand(keys[0], false, wait);
    else batch.addCommand(wait);
    try {
      const [reply, waited] = await batch.execAsPipeline();
      return [reply, null, waited];
    } catch (error) {
      if (withSource || !(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) return [undefined, error, undefined];
    }
  }
}
«section:exports»
  ReplicaShortfallError,
