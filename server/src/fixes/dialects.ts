// Each client library's own way of writing what the minimal fixes write: one SET that takes the
// lock and its lease (redis-py `set(k, v, nx=True, ex=t)`, ioredis `set(k, v, 'EX', t, 'NX')`,
// Jedis `set(k, v, SetParams.setParams().nx().ex(t))`, ...), what that SET replies compared with
// the SETNX it replaces, and how a test of the old reply reads against the new one. The fixes
// keep the user's library: a fix in another client's API would not compile.
import type { Manifest } from '../../../snippets/infer';
import { rankClients, usesClient } from '../../../snippets/infer';
import type { RedisOp } from '../analysis/ops';
import { noFix, type NoFix } from './remedy';

export type DialectId =
  | 'redis-py'
  | 'ioredis'
  | 'node-redis'
  | 'jedis'
  | 'lettuce'
  | 'spring'
  | 'go-redis'
  | 'redigo'
  | 'phpredis'
  | 'predis'
  | 'redis-rb'
  | 'stackexchange'
  | 'glide-python'
  | 'glide-node'
  | 'glide-java'
  | 'glide-go';

/**
 * A lease as the code gives it: an amount in seconds or milliseconds (`expire(k, 30)`,
 * `pexpire(k, ttl)`), or a value of the language's duration type (go-redis `30*time.Second`,
 * C#'s `TimeSpan`, Spring's `Duration` or `30, TimeUnit.SECONDS`), passed on as written.
 */
export type Lease = { kind: 'amount'; unit: 's' | 'ms'; text: string } | { kind: 'duration'; text: string };

/** How the SET that takes the lock with its lease replies, next to the SETNX (or SET NX) it replaces. */
export interface Reply {
  /** The same type and values as before: tests of it need no change. */
  same?: boolean;
  /** A condition on the reply (`if (reply)`) means what it meant before. */
  truthy?: boolean;
  /** The test that the lock was taken, of a reply written `x`. */
  success?(x: string): string;
  failure?(x: string): string;
  /** The old reply's value computed from the new one (`"OK".equals(x) ? 1L : 0L`), for a reply returned or stored. */
  convert?(x: string): string;
  /** Python: wrap the call so that it replies a bool again (every test and use stays valid). */
  wrap?(x: string): string;
}

export interface Dialect {
  id: DialectId;
  /** The library, as titles name it. */
  library: string;
  reply: Reply;
  /** An import the SET form needs (Jedis's SetParams, Lettuce's SetArgs), in the form the file writes imports. */
  importLine?: string | ((source: string) => string);
}

/** The import `dialect`'s SET form needs in `source`, if any. */
export function importLineOf(dialect: DialectId, source: string): string | undefined {
  const line = DIALECTS[dialect].importLine;
  return typeof line === 'function' ? line(source) : line;
}

const quoteOk = (x: string) => `${x} === 'OK'`;

export const DIALECTS: Record<DialectId, Dialect> = {
  'redis-py': {
    id: 'redis-py',
    library: 'redis-py',
    // setnx replies True/False, set(nx=True) True/None: bool() makes them the same.
    reply: { truthy: true, wrap: (x) => `bool(${x})` },
  },
  ioredis: {
    id: 'ioredis',
    library: 'ioredis',
    reply: {
      truthy: true,
      success: quoteOk,
      failure: (x) => `${x} !== 'OK'`,
      convert: (x) => `${quoteOk(x)} ? 1 : 0`,
    },
  },
  'node-redis': {
    id: 'node-redis',
    library: 'node-redis',
    reply: { truthy: true, success: quoteOk, failure: (x) => `${x} !== 'OK'`, convert: quoteOk },
  },
  jedis: {
    id: 'jedis',
    library: 'Jedis',
    reply: {
      success: (x) => `"OK".equals(${x})`,
      failure: (x) => `!"OK".equals(${x})`,
      convert: (x) => `"OK".equals(${x}) ? 1L : 0L`,
    },
    importLine: 'import redis.clients.jedis.params.SetParams;',
  },
  lettuce: {
    id: 'lettuce',
    library: 'Lettuce',
    reply: {
      success: (x) => `"OK".equals(${x})`,
      failure: (x) => `!"OK".equals(${x})`,
      convert: (x) => `"OK".equals(${x})`,
    },
    importLine: 'import io.lettuce.core.SetArgs;',
  },
  spring: { id: 'spring', library: 'Spring Data Redis', reply: { same: true } },
  'go-redis': { id: 'go-redis', library: 'go-redis', reply: { same: true } },
  redigo: {
    id: 'redigo',
    library: 'redigo',
    reply: { success: (x) => `${x} == "OK"`, failure: (x) => `${x} != "OK"` },
  },
  phpredis: { id: 'phpredis', library: 'phpredis', reply: { same: true } },
  predis: {
    id: 'predis',
    library: 'Predis',
    reply: {
      truthy: true,
      success: (x) => `${x} !== null`,
      failure: (x) => `${x} === null`,
      convert: (x) => `${x} !== null ? 1 : 0`,
    },
  },
  'redis-rb': { id: 'redis-rb', library: 'redis-rb', reply: { same: true } },
  stackexchange: { id: 'stackexchange', library: 'StackExchange.Redis', reply: { same: true } },
  // GLIDE has no SETNX: its acquire is already a SET with a conditional-set option, and gaining an expiry keeps its reply.
  'glide-python': {
    id: 'glide-python',
    library: 'Valkey GLIDE for Python',
    reply: { same: true },
    importLine: (source) =>
      `from ${/^\s*(?:from|import)\s+glide_sync\b/m.test(source) ? 'glide_sync' : 'glide'} import ExpirySet, ExpiryType`,
  },
  'glide-node': {
    id: 'glide-node',
    library: 'Valkey GLIDE for Node',
    reply: { same: true },
    importLine: (source) =>
      /\brequire\(\s*['"]@valkey\/valkey-glide['"]\s*\)/.test(source)
        ? "const { TimeUnit } = require('@valkey/valkey-glide');"
        : "import { TimeUnit } from '@valkey/valkey-glide';",
  },
  'glide-java': {
    id: 'glide-java',
    library: 'Valkey GLIDE for Java',
    reply: { same: true },
    importLine: 'import glide.api.models.commands.SetOptions;',
  },
  'glide-go': { id: 'glide-go', library: 'Valkey GLIDE for Go', reply: { same: true } },
};

/** A Valkey GLIDE import in any binding: `from glide import`, `@valkey/valkey-glide`, `glide.api.`, `valkey-glide/go`. */
export const GLIDE_IMPORT =
  /^\s*(?:from\s+glide(?:_sync)?\b|import\s+glide(?:_sync)?\b|import\s+(?:static\s+)?glide\.api\.)|@valkey\/valkey-glide\b|valkey-io\/valkey-glide\/go\b/m;

/** The GLIDE binding's dialect of a file that imports GLIDE; its custom command is a raw command the fix does not rewrite. */
function glideDialect(languageId: string, method: string): DialectId | NoFix {
  if (/^(custom_?command)$/i.test(method))
    return noFix(
      'generic-command',
      `the lock is taken with a raw command (${method}): write it as GLIDE's set with its conditional-set and expiry options`,
    );
  switch (languageId) {
    case 'python':
      return 'glide-python';
    case 'java':
      return 'glide-java';
    case 'go':
      return 'glide-go';
    case 'javascript':
    case 'javascriptreact':
    case 'typescript':
    case 'typescriptreact':
      return 'glide-node';
    default:
      return noFix('language', `no fix for ${languageId}`);
  }
}

/** The library a lock call is written for: the call's own form first, then the file's imports and manifests. */
export function dialectOf(languageId: string, source: string, manifests: Manifest[], op: RedisOp): DialectId | NoFix {
  const method = op.call.nameNode.text;
  const uses = (id: string) => {
    const client = rankClients({ languageId, source, manifests }).find((each) => each.id === id);
    return !!client && usesClient(client, source, manifests);
  };
  const generic = /^(do|execute_command|call|send_command|sendCommand|executeCommand|rawCommand|executeRaw)$/i;
  if (GLIDE_IMPORT.test(source)) return glideDialect(languageId, method);
  switch (languageId) {
    case 'python':
      return generic.test(method)
        ? noFix('generic-command', 'the lock is taken with a raw command (execute_command): write it as r.set(...)')
        : 'redis-py';
    case 'ruby':
      return 'redis-rb';
    case 'csharp':
      return 'stackexchange';
    case 'go':
      if (method === 'SetNX') return 'go-redis';
      if (method === 'SetArgs')
        return noFix('set-options', 'SetArgs replies a status, not a bool: give its SetArgs a TTL by hand');
      // redigo's conn.Do("SETNX", ...) has no context argument; go-redis's rdb.Do(ctx, ...) does.
      if (method === 'Do' && /^"/.test(op.call.args[0]?.value.text ?? '')) return 'redigo';
      return noFix('generic-command', 'the lock is taken with a raw command (Do): write it with SetNX');
    case 'java':
      if (/^setIfAbsent$/.test(method)) return 'spring';
      if (uses('jedis') && !uses('lettuce')) return 'jedis';
      if (uses('lettuce') && !uses('jedis')) return 'lettuce';
      return noFix('client-unknown', 'neither a Jedis nor a Lettuce import or dependency says which client this is');
    case 'php':
      if (uses('predis') && !uses('phpredis')) return 'predis';
      if (uses('phpredis') && !uses('predis')) return 'phpredis';
      return noFix(
        'client-unknown',
        'no import or composer.json entry tells phpredis from Predis, whose SET options differ: add predis/predis or ext-redis to composer.json',
      );
    case 'javascript':
    case 'javascriptreact':
    case 'typescript':
    case 'typescriptreact': {
      if (generic.test(method))
        return noFix('generic-command', 'the lock is taken with a raw command: write it as redis.set(...)');
      // node-redis v4 names commands setNX / SETNX; ioredis and node-redis v3 (callbacks) setnx.
      if (uses('ioredis') && !uses('node-redis'))
        return method === 'setNX'
          ? noFix('client-unknown', 'the file imports ioredis but calls setNX, which ioredis does not have')
          : 'ioredis';
      if (uses('node-redis') && !uses('ioredis'))
        return method === 'setnx'
          ? noFix(
              'callback-api',
              'node-redis with lowercase setnx is the callback API of v3: the fix writes v4 calls (await client.set(...))',
            )
          : 'node-redis';
      return noFix('client-unknown', 'no import or package.json entry says whether this is ioredis or node-redis');
    }
    default:
      return noFix('language', `no fix for ${languageId}`);
  }
}

/** The call's method name and argument list that take the lock with `lease`, in the dialect's API. */
export function setWithLease(
  dialect: DialectId,
  parts: { key: string; value: string; lease: Lease; method: string; context?: string; options?: string[] },
): { method: string; args: string } | NoFix {
  const { key, value, lease } = parts;
  const amount = lease.kind === 'amount' ? lease : undefined;
  const unit = amount?.unit === 'ms' ? 'px' : 'ex';
  const needsAmount = () =>
    noFix('lease-type', `the lease is a ${lease.text} value where ${DIALECTS[dialect].library} wants seconds or ms`);
  switch (dialect) {
    case 'redis-py':
      return amount ? { method: 'set', args: `${key}, ${value}, nx=True, ${unit}=${amount.text}` } : needsAmount();
    case 'ioredis':
      return amount
        ? { method: 'set', args: `${key}, ${value}, '${unit.toUpperCase()}', ${amount.text}, 'NX'` }
        : needsAmount();
    case 'node-redis':
      return amount
        ? { method: 'set', args: `${key}, ${value}, { NX: true, ${unit.toUpperCase()}: ${amount.text} }` }
        : needsAmount();
    case 'jedis':
      return amount
        ? { method: 'set', args: `${key}, ${value}, SetParams.setParams().nx().${unit}(${amount.text})` }
        : needsAmount();
    case 'lettuce':
      return amount
        ? { method: 'set', args: `${key}, ${value}, SetArgs.Builder.nx().${unit}(${amount.text})` }
        : needsAmount();
    case 'spring':
      return {
        method: 'setIfAbsent',
        args: `${key}, ${value}, ${
          lease.kind === 'duration'
            ? lease.text
            : `${lease.text}, TimeUnit.${lease.unit === 'ms' ? 'MILLISECONDS' : 'SECONDS'}`
        }`,
      };
    case 'go-redis':
      return lease.kind === 'duration'
        ? { method: 'SetNX', args: `${parts.context ?? 'ctx'}, ${key}, ${value}, ${lease.text}` }
        : noFix('lease-type', 'go-redis takes the lease as a time.Duration');
    case 'redigo':
      return amount
        ? { method: 'Do', args: `"SET", ${key}, ${value}, "NX", "${unit.toUpperCase()}", ${amount.text}` }
        : needsAmount();
    case 'phpredis':
      return amount ? { method: 'set', args: `${key}, ${value}, ['nx', '${unit}' => ${amount.text}]` } : needsAmount();
    case 'predis':
      return amount
        ? { method: 'set', args: `${key}, ${value}, '${unit.toUpperCase()}', ${amount.text}, 'NX'` }
        : needsAmount();
    case 'redis-rb':
      return amount ? { method: 'set', args: `${key}, ${value}, nx: true, ${unit}: ${amount.text}` } : needsAmount();
    case 'stackexchange':
      return lease.kind === 'duration'
        ? {
            method: parts.method.endsWith('Async') ? 'StringSetAsync' : 'StringSet',
            args: `${key}, ${value}, ${lease.text}, When.NotExists`,
          }
        : noFix('lease-type', 'StackExchange.Redis takes the lease as a TimeSpan');
    case 'glide-python':
    case 'glide-node':
    case 'glide-java':
    case 'glide-go':
      return glideSetWithLease(dialect, parts);
  }
}

/**
 * GLIDE: the SET already says NX in its options; the lease joins them, the rest stays as written:
 * Python `expiry=ExpirySet(ExpiryType.SEC, t)`, Node `expiry: { type: TimeUnit.Seconds, count: t }`
 * in the options object, Java `.expiry(SetOptions.Expiry.Seconds(t))` before the builder's
 * `.build()`, Go `.SetExpiry(options.NewExpiryIn(d))` after `NewSetOptions()`'s chain.
 */
function glideSetWithLease(
  dialect: 'glide-python' | 'glide-node' | 'glide-java' | 'glide-go',
  parts: { key: string; value: string; lease: Lease; method: string; context?: string; options?: string[] },
): { method: string; args: string } | NoFix {
  const { key, value, lease, method } = parts;
  const options = parts.options ?? [];
  const amount = lease.kind === 'amount' ? lease : undefined;
  const ms = amount?.unit === 'ms';
  const head = [...(parts.context !== undefined ? [parts.context] : []), key, value];
  const unreadable = noFix(
    'set-options',
    `the SET's options are not written where the fix can add the expiry (${DIALECTS[dialect].library}): add it by hand`,
  );
  const needsAmount = noFix('lease-type', `the lease is a ${lease.text} value where GLIDE wants seconds or ms`);
  switch (dialect) {
    case 'glide-python': {
      if (!amount) return needsAmount;
      if (options.some((option) => /^expiry\s*=/.test(option))) return unreadable;
      const expiry = `expiry=ExpirySet(ExpiryType.${ms ? 'MILLSEC' : 'SEC'}, ${amount.text})`;
      return { method, args: [...head, ...options, expiry].join(', ') };
    }
    case 'glide-node': {
      if (!amount) return needsAmount;
      const object = options.length === 1 ? /^\{([\s\S]*?)(,?)(\s*)\}$/.exec(options[0]) : null;
      if (!object || /\bexpiry\b|\.\.\./.test(object[1])) return unreadable;
      const expiry = `expiry: { type: TimeUnit.${ms ? 'Milliseconds' : 'Seconds'}, count: ${amount.text} }`;
      return { method, args: [...head, `{${object[1]}, ${expiry}${object[2]}${object[3]}}`].join(', ') };
    }
    case 'glide-java': {
      if (!amount) return needsAmount;
      const builder = options.length === 1 ? /^([\s\S]*?)(\s*\.\s*build\s*\(\s*\))$/.exec(options[0]) : null;
      if (!builder || /\.\s*expiry\s*\(/.test(builder[1])) return unreadable;
      const long = /^\d[\d_]*$/.test(amount.text) ? `${amount.text}L` : `(long) (${amount.text})`;
      const expiry = `.expiry(SetOptions.Expiry.${ms ? 'Milliseconds' : 'Seconds'}(${long}))`;
      return { method, args: [...head, `${builder[1]}${expiry}${builder[2]}`].join(', ') };
    }
    case 'glide-go': {
      if (lease.kind !== 'duration') return noFix('lease-type', 'GLIDE for Go takes the lease as a time.Duration');
      const chain = options.length === 1 ? /^(\*?\s*)(\w+)(\.NewSetOptions\(\)[\s\S]*)$/.exec(options[0]) : null;
      if (!chain || /\.SetExpiry\(/.test(chain[3])) return unreadable;
      const expiry = `.SetExpiry(${chain[2]}.NewExpiryIn(${lease.text}))`;
      return { method, args: [...head, `${chain[1]}${chain[2]}${chain[3]}${expiry}`].join(', ') };
    }
  }
}

/** The lease a suggestion adds where the lock had none: 30 s, in the dialect's terms. */
export function defaultLease(dialect: DialectId): { lease: Lease; imports: string[] } {
  switch (dialect) {
    case 'go-redis':
      return { lease: { kind: 'duration', text: '30*time.Second' }, imports: ['import "time"'] };
    case 'stackexchange':
      return { lease: { kind: 'duration', text: 'TimeSpan.FromSeconds(30)' }, imports: ['using System;'] };
    case 'spring':
      return { lease: { kind: 'duration', text: 'Duration.ofSeconds(30)' }, imports: ['import java.time.Duration;'] };
    case 'glide-go':
      return { lease: { kind: 'duration', text: '30*time.Second' }, imports: ['import "time"'] };
    default:
      return { lease: { kind: 'amount', unit: 's', text: '30' }, imports: [] };
  }
}
