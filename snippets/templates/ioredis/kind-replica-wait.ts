«section:imports»
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
 * The script and the wait in one pipeline (a Cluster's goes to the node of the script's keys; WAIT
 * has none): [the script's reply, the wait's error, its reply]. NOSCRIPT sends both again with the
 * source; a redirection, once the slot map is fresh (nothing was written where it redirected).
 */
async function pipelineWait(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]», command«ts:: (string | number)[]»)«ts:: Promise<[unknown, unknown, unknown]>» {
  for (let withSource = false, redirections = 0; ; ) {
    const pipeline = redis.pipeline();
    if (withSource) pipeline.eval(SCRIPTS[name], keys.length, ...keys, ...args);
    else pipeline.evalsha(createHash('sha1').update(SCRIPTS[name]).digest('hex'), keys.length, ...keys, ...args);
    pipeline.call(String(command[0]), ...command.slice(1));
    const [[acquireError, reply] = [null, null], [waitError, waited] = [null, null]] = (await pipeline.exec()) ?? [];
    if (!acquireError) return [reply, waitError, waited];
    if (!withSource && acquireError.message.startsWith('NOSCRIPT')) withSource = true;
    else if (redis.isCluster && /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /.test(acquireError.message) && ++redirections <= 3) {
      await new Promise((resolve) => «ts:(redis as Cluster)»«js:redis».refreshSlotsCache(resolve));
    } else throw acquireError;
  }
}
«section:exports»
  ReplicaShortfallError,
