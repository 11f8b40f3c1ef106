«section:imports»
«esm:import { AsyncLocalStorage } from 'node:async_hooks';»
«cjs:const { AsyncLocalStorage } = require('node:async_hooks');»
«section:scripts»
  locksmithReentrantAcquire: `«lua:reentrant_acquire»`,
  locksmithReentrantExtend: `«lua:reentrant_extend»`,
  locksmithReentrantRelease: `«lua:reentrant_release»`,
«section:lock-options»
  /** A withLock (or acquire) inside the callback of a withLock on the same key re-enters it; each take needs its release. */
  reentrant?: boolean;
«section:acquire»
  if (options.reentrant) return acquireReentrant(redis, key, options);
«section:with-lock»
  if (options.reentrant) {
    const holds = new Map(reentrantHolds.getStore()).set(key, lease.token);
    return reentrantHolds.run(holds, () => hold(lease, fn));
  }
«section:code»
«include-once:_js/kind-common»
const REENTRANT«ts:: Kind» = { extend: 'locksmithReentrantExtend', release: 'locksmithReentrantRelease' };

/** The owner tokens of the reentrant locks held around the current call, by key. */
const reentrantHolds = new AsyncLocalStorage«ts:<Map<string, string>>»();

/** A reentrant lock: inside the callback of a reentrant withLock on the same key, taken again. */
async function acquireReentrant(redis«ts:: LockClient», key«ts:: string», options«ts:: LockOptions»)«ts:: Promise<Lease>» {
  if (options.fenceKey !== undefined) throw new TypeError('fenceKey works with a plain lock, not a reentrant one');
  const token = reentrantHolds.getStore()?.get(key) ?? newToken();
  return acquireKind(redis, key, token, options, REENTRANT, 'locksmithReentrantAcquire', [], 'another owner');
}

