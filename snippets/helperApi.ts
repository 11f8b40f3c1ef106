// The lock helper's API as the lint fixes call it (CONTRACT-helper-api.md): per client, how to
// write a call of the low-level release and extend (compare-and-delete, compare-and-extend with
// the user's own client, key and token) and of the try variant (one try, never waits; the
// language's "nothing" when busy), and which names the call needs imported. One table, kept in
// step with the templates by test/helpers-api.test.ts, which compiles or runs each call.
import { csharpDuration, goDuration, helperImportLines, rustDuration, type CallSiteOptions } from './callsite';
import { findClient, SnippetError } from './template';

export type HelperOp = 'release' | 'extend' | 'tryAcquire';
export const HELPER_OPS: readonly HelperOp[] = ['release', 'extend', 'tryAcquire'];

export interface HelperCallArgs {
  /** The user's client expression (a client, pool, connection or database, as the helper takes it). */
  client: string;
  /** The lock key expression. */
  key: string;
  /** The owner token expression: release and extend. */
  token?: string;
  /** The lease in ms (an integer expression): extend and tryAcquire. */
  ttlMs?: string;
  /** redis-py: the call is on a redis.asyncio client (the `_async` functions, awaited). */
  async?: boolean;
}

export interface HelperCall {
  /** The call expression, awaited where the helper's function is async (JavaScript, C#, asyncio). */
  code: string;
  /** What the call needs imported from the helper (see helperCallImports). */
  importedNames: string[];
}

/**
 * What tryAcquire gives back per language, for the code around the call: the lease, or when busy
 * null (JavaScript, Java, C#, PHP), None (Python), nil (Ruby), `None` in an `Option` inside a
 * `Result` (Rust), or `ok == false` as the second of three results (Go).
 */
export const TRY_ACQUIRE_BUSY: Record<string, string> = {
  ioredis: 'null',
  'node-redis': 'null',
  'glide-node': 'null',
  'glide-go': 'ok == false (lease, ok, err := ...)',
  'glide-java': 'null',
  'redis-py': 'None',
  'glide-python': 'None',
  jedis: 'null',
  lettuce: 'null',
  'spring-data-redis': 'null',
  'go-redis': 'ok == false (lease, ok, err := ...)',
  redigo: 'ok == false (lease, ok, err := ...)',
  stackexchange: 'null',
  phpredis: 'null',
  predis: 'null',
  'redis-rb': 'nil',
  'redis-rs': 'Ok(None)',
};

type Render = (args: Required<Omit<HelperCallArgs, 'async'>>) => string;
interface ClientApi {
  /** The names a call of each op imports (JavaScript, Python, Rust) or qualifies with (the others). */
  names: Record<HelperOp, string>;
  render: Record<HelperOp, Render>;
}

const JS_API: ClientApi = {
  names: { release: 'releaseLock', extend: 'extendLock', tryAcquire: 'tryAcquire' },
  render: {
    release: (a) => `await releaseLock(${a.client}, ${a.key}, ${a.token})`,
    extend: (a) => `await extendLock(${a.client}, ${a.key}, ${a.token}, ${a.ttlMs})`,
    tryAcquire: (a) => `await tryAcquire(${a.client}, ${a.key}, { ttlMs: ${a.ttlMs} })`,
  },
};
const JAVA_API: ClientApi = {
  names: { release: 'Locksmith', extend: 'Locksmith', tryAcquire: 'Locksmith' },
  render: {
    release: (a) => `Locksmith.releaseLock(${a.client}, ${a.key}, ${a.token})`,
    extend: (a) => `Locksmith.extendLock(${a.client}, ${a.key}, ${a.token}, ${a.ttlMs})`,
    tryAcquire: (a) => `Locksmith.tryAcquire(${a.client}, ${a.key}, Locksmith.ttlMs(${a.ttlMs}))`,
  },
};
const goApi = (context: string): ClientApi => ({
  names: { release: 'locksmith', extend: 'locksmith', tryAcquire: 'locksmith' },
  render: {
    release: (a) => `locksmith.ReleaseLock(${context}${a.client}, ${a.key}, ${a.token})`,
    extend: (a) => `locksmith.ExtendLock(${context}${a.client}, ${a.key}, ${a.token}, ${goDuration(a.ttlMs)})`,
    tryAcquire: (a) => `locksmith.TryAcquire(ctx, ${a.client}, ${a.key}, ${goDuration(a.ttlMs)})`,
  },
});
const PHP_API: ClientApi = {
  names: { release: 'Locksmith', extend: 'Locksmith', tryAcquire: 'Locksmith' },
  render: {
    release: (a) => `Locksmith::releaseLock(${a.client}, ${a.key}, ${a.token})`,
    extend: (a) => `Locksmith::extendLock(${a.client}, ${a.key}, ${a.token}, ${a.ttlMs})`,
    tryAcquire: (a) => `Locksmith::tryAcquire(${a.client}, ${a.key}, ${a.ttlMs})`,
  },
};
const PYTHON_API: ClientApi = {
  names: { release: 'release_lock', extend: 'extend_lock', tryAcquire: 'try_acquire' },
  render: {
    release: (a) => `release_lock(${a.client}, ${a.key}, ${a.token})`,
    extend: (a) => `extend_lock(${a.client}, ${a.key}, ${a.token}, ${a.ttlMs})`,
    tryAcquire: (a) => `try_acquire(${a.client}, ${a.key}, ttl_ms=${a.ttlMs})`,
  },
};

const API: Record<string, ClientApi> = {
  ioredis: JS_API,
  'node-redis': JS_API,
  'glide-node': JS_API,
  'glide-go': goApi('ctx, '),
  'glide-java': JAVA_API,
  'redis-py': PYTHON_API,
  // GLIDE for Python is asyncio only: every call is awaited.
  'glide-python': {
    names: PYTHON_API.names,
    render: {
      release: (a) => `await ${PYTHON_API.render.release(a)}`,
      extend: (a) => `await ${PYTHON_API.render.extend(a)}`,
      tryAcquire: (a) => `await ${PYTHON_API.render.tryAcquire(a)}`,
    },
  },
  jedis: JAVA_API,
  lettuce: JAVA_API,
  // A Locksmith wraps the user's StringRedisTemplate (or is their bean): its methods take no client.
  'spring-data-redis': {
    names: JAVA_API.names,
    render: {
      release: (a) => `new Locksmith(${a.client}).releaseLock(${a.key}, ${a.token})`,
      extend: (a) => `new Locksmith(${a.client}).extendLock(${a.key}, ${a.token}, ${a.ttlMs})`,
      tryAcquire: (a) => `new Locksmith(${a.client}).tryAcquire(${a.key}, Locksmith.ttlMs(${a.ttlMs}))`,
    },
  },
  // go-redis takes a context with each call; redigo's low-level calls take a connection (Conn.Do has none).
  'go-redis': goApi('ctx, '),
  redigo: goApi(''),
  stackexchange: {
    names: { release: 'RedisLock', extend: 'RedisLock', tryAcquire: 'RedisLock' },
    render: {
      release: (a) => `await RedisLock.ReleaseLockAsync(${a.client}, ${a.key}, ${a.token})`,
      extend: (a) => `await RedisLock.ExtendLockAsync(${a.client}, ${a.key}, ${a.token}, ${csharpDuration(a.ttlMs)})`,
      tryAcquire: (a) => `await RedisLock.TryAcquireAsync(${a.client}, ${a.key}, ${csharpDuration(a.ttlMs)})`,
    },
  },
  phpredis: PHP_API,
  predis: PHP_API,
  'redis-rb': {
    names: { release: 'Locksmith', extend: 'Locksmith', tryAcquire: 'Locksmith' },
    render: {
      release: (a) => `Locksmith.release_lock(${a.client}, ${a.key}, ${a.token})`,
      extend: (a) => `Locksmith.extend_lock(${a.client}, ${a.key}, ${a.token}, ${a.ttlMs})`,
      tryAcquire: (a) => `Locksmith.try_acquire(${a.client}, ${a.key}, ttl_ms: ${a.ttlMs})`,
    },
  },
  // Results: Result<bool, LockError> for release and extend, Result<Option<Lease>, LockError> for the try.
  'redis-rs': {
    names: { release: 'release_lock', extend: 'extend_lock', tryAcquire: 'Lease' },
    render: {
      release: (a) => `release_lock(&mut ${a.client}, ${a.key}, ${a.token})`,
      extend: (a) => `extend_lock(&mut ${a.client}, ${a.key}, ${a.token}, std::time::${rustDuration(a.ttlMs)})`,
      tryAcquire: (a) => `Lease::try_acquire(&mut ${a.client}, ${a.key}, std::time::${rustDuration(a.ttlMs)})`,
    },
  },
};

/** The names of redis-py's asyncio variants. */
const PYTHON_ASYNC: Record<HelperOp, string> = {
  release: 'release_lock_async',
  extend: 'extend_lock_async',
  tryAcquire: 'try_acquire_async',
};

/** A call of the helper's `op` in the client's language, and what it needs imported. */
export function helperCall(clientId: string, op: HelperOp, args: HelperCallArgs): HelperCall {
  const client = findClient(clientId);
  const api = API[client.id];
  if (!HELPER_OPS.includes(op)) throw new SnippetError(`unknown helper operation '${String(op)}'`);
  const needs = op === 'release' ? ['token'] : op === 'extend' ? ['token', 'ttlMs'] : ['ttlMs'];
  const missing = needs.filter((name) => !args[name as 'token' | 'ttlMs']);
  if (missing.length) throw new SnippetError(`${client.id} ${op} needs ${missing.join(' and ')}`);
  if (args.async && client.id !== 'redis-py') {
    throw new SnippetError(`${client.id}: 'async' is for redis-py's asyncio client only`);
  }
  const filled = { client: args.client, key: args.key, token: args.token ?? '', ttlMs: args.ttlMs ?? '' };
  const code = api.render[op](filled);
  if (args.async) {
    const name = PYTHON_ASYNC[op];
    return { code: `await ${code.replace(api.names[op], name)}`, importedNames: [name] };
  }
  return { code, importedNames: [api.names[op]] };
}

/** The import lines for `importedNames` of one or more calls, deduplicated, in the forms call sites use. */
export function helperCallImports(clientId: string, importedNames: readonly string[], options: CallSiteOptions) {
  return helperImportLines(clientId, [...new Set(importedNames)], options);
}
