«header»

// Locks for node-redis (v4, v5): withLock(redis, key, { ttlMs }, async (lease) => ...) holds a lock
// around the callback; acquire() and lease.release() are for code that cannot use one; tryAcquire()
// tries once and never waits (null when busy); releaseLock() and extendLock() take a key and a
// token. A waiter tries again when the holder's lease ends (PTTL) or a jittered retry bound passes.
«kinds:about»
«set:pttl»pTTL
«esm:import { createHash, randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«cjs:const { createHash, randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«kinds:imports»

// Each script runs by its SHA1 (EVALSHA); on NOSCRIPT (cache flushed, restart, failover) the source goes once
// with EVAL, which caches it again. Any node-redis v4/v5 client or cluster works as it is, no scripts option.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
«kinds:scripts»
};
const SHA1S = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, lua]) => [name, createHash('sha1').update(lua).digest('hex')]),
);

«ts:/** What the helper needs of a node-redis client or cluster (v4 or v5). */
export interface LockClient {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  pTTL(key: string): Promise<unknown>;
«kinds:client»
}
»
async function call(redis«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<unknown>» {
  const options = { keys, arguments: args.map(String) };
  try {
    return await redis.evalSha(«ts:SHA1S[name] as string»«js:SHA1S[name]», options);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await redis.eval(SCRIPTS[name], options);
  }
}

«include:_js/core»
«kinds:code»
«include:_js/exports»
