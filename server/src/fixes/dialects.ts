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
  | 'stackexchange';

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
  /** An import the SET form needs (Jedis's SetParams, Lettuce's SetArgs). */
  importLine?: string;
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
};

/** The library a lock call is written for: the call's own form first, then the file's imports and manifests. */
export function dialectOf(languageId: string, source: string, manifests: Manifest[], op: RedisOp): DialectId | NoFix {
  const method = op.call.nameNode.text;
  const uses = (id: string) => {
    const client = rankClients({ languageId, source, manifests }).find((each) => each.id === id);
    return !!client && usesClient(client, source, manifests);
  };
  const generic = /^(do|execute_command|call|send_command|sendCommand|executeCommand|rawCommand|executeRaw)$/i;
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
  parts: { key: string; value: string; lease: Lease; method: string; context?: string },
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
    default:
      return { lease: { kind: 'amount', unit: 's', text: '30' }, imports: [] };
  }
}
