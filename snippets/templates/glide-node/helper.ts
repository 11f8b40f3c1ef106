«header»

// Locks for Valkey GLIDE for Node: withLock(client, key, { ttlMs }, async (lease) => ...) holds a lock around
// the callback; acquire() and lease.release() are for code that cannot use one; tryAcquire() tries once and
// never waits (null when busy); releaseLock() and extendLock() take a key and a token. A waiter tries
// again when the holder's lease ends (PTTL) or a jittered retry bound passes.
«kinds:about»
«set:pttl»pttl
«ts:import type { GlideClient } from '@valkey/valkey-glide';»
«esm:import { GlideClusterClient, Script } from '@valkey/valkey-glide';»
«cjs:const { GlideClusterClient, Script } = require('@valkey/valkey-glide');»
«esm:import { randomUUID } from 'node:crypto';»
«esm:import { hostname } from 'node:os';»
«cjs:const { randomUUID } = require('node:crypto');»
«cjs:const { hostname } = require('node:os');»
«kinds:imports»

// GLIDE runs a Script with EVALSHA and on NOSCRIPT (cache flushed, restart, failover) loads it and runs it
// again; a flush between the two still gives NOSCRIPT, and then the source goes once with EVAL.
const SCRIPTS = {
  locksmithAcquire: `«lua:acquire»`,
  locksmithExtend: `«lua:extend»`,
  locksmithRelease: `«lua:release»`,
«kinds:scripts»
};
const scripts = new Map«ts:<ScriptName, Script>»();

«ts:export type LockClient = GlideClient | GlideClusterClient;
»
/** Runs a script by invokeScript: the keys, the arguments. */
async function call(client«ts:: LockClient», name«ts:: ScriptName», keys«ts:: string[]», args«ts:: (string | number)[]»)«ts:: Promise<unknown>» {
  let script = scripts.get(name);
  if (script === undefined) {
    script = new Script(SCRIPTS[name]);
    scripts.set(name, script);
  }
  try {
    return await client.invokeScript(script, { keys, args: args.map(String) });
  } catch (error) {
    if (!(error instanceof Error) || !/NoScript/i.test(error.message)) throw error;
    return await client.customCommand(['EVAL', SCRIPTS[name], String(keys.length), ...keys, ...args.map(String)]);
  }
}

«include:_js/core»
«kinds:code»
«include:_js/exports»
