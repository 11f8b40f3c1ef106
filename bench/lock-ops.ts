// Acquire+release pairs per second, each worker on its own key, against one throwaway server per
// kind (Debian's Redis 7.0, Valkey 9): (a) the pack as LockScripts runs it (the native path where
// the server has it: SET NX GET, then DELIFEQ + SPUBLISH in one round trip), (a') the pack's Lua scripts only
// (EVALSHA), (b) raw SET NX PX + DEL (the unsafe floor), (c) npm redlock on the same single
// instance; on Valkey also (n) SET NX GET + DELIFEQ without the wake-up, which is what the wake-up
// costs; and a two-key lock (LockScripts.multi: MSETEX NX where the server has it, else
// multi_acquire.lua) against the same through the scripts only. Prints a table per server; not a test.
//   npm run bench:lock-ops -- [--seconds 1] [--rounds 8] [--concurrency 1,8,32] [--servers redis,valkey]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type Redis from 'ioredis';
import Redlock from 'redlock';
import { loadPack } from '../pack/pack';
import { LockScripts } from '../pack/runtime';
import { SERVER_KINDS, startRedis, type RedisServer, type ServerKind } from '../test/harness/redis';

const PACK = loadPack();

const TTL = 10_000;

interface Variant {
  name: string;
  /** Runs only on this kind of server. */
  only?: ServerKind;
  /** Returns one acquire+release on `key`; throws if the lock was not taken. */
  makePair(redis: Redis): (key: string) => Promise<void>;
}

const token = () => `bench#${randomBytes(8).toString('hex')}`;

function packPair(native: 'auto' | 'lua'): Variant['makePair'] {
  return (redis) => {
    const locks = new LockScripts(redis, PACK, { native });
    return async (key) => {
      const owner = token();
      if ((await locks.acquire(key, owner, TTL)) === 0) throw new Error(`${key} not acquired`);
      if (!(await locks.release(key, owner))) throw new Error(`${key} not released`);
    };
  };
}

/** A two-key lock (LockScripts.multi): MSETEX NX where the server has it, else multi_acquire.lua; then multi_release.lua. */
function multiPair(native: 'auto' | 'lua'): Variant['makePair'] {
  return (redis) => {
    const locks = new LockScripts(redis, PACK, { native });
    return async (key) => {
      const owner = token();
      const keys = [key, `${key}:2`];
      if (!(await locks.multi.acquire(keys, owner, TTL))) throw new Error(`${key} not acquired`);
      if ((await locks.multi.release(keys, owner)) !== 2) throw new Error(`${key} not released`);
    };
  };
}

const VARIANTS: Variant[] = [
  { name: 'pack', makePair: packPair('auto') },
  { name: 'pack (Lua only)', makePair: packPair('lua') },
  { name: 'multi 2 keys', makePair: multiPair('auto') },
  { name: 'multi (Lua only)', makePair: multiPair('lua') },
  {
    name: 'SET NX PX + DEL',
    makePair(redis) {
      return async (key) => {
        if ((await redis.set(key, token(), 'PX', TTL, 'NX')) !== 'OK') throw new Error(`${key} not acquired`);
        await redis.del(key);
      };
    },
  },
  {
    // Not a pack variant: the native commands without the wake-up, to show what the wake-up costs.
    name: 'NX GET + DELIFEQ',
    only: 'valkey',
    makePair(redis) {
      return async (key) => {
        const owner = token();
        if ((await redis.call('SET', key, owner, 'NX', 'PX', TTL, 'GET')) !== null) throw new Error(`${key} held`);
        if ((await redis.call('DELIFEQ', key, owner)) !== 1) throw new Error(`${key} not released`);
      };
    },
  },
  {
    name: 'redlock',
    makePair(redis) {
      const redlock = new Redlock([redis], { retryCount: 0 });
      return async (key) => {
        const lock = await redlock.acquire([key], TTL);
        await lock.release();
      };
    },
  },
];

interface Rig {
  variant: Variant;
  clients: Redis[];
  pairs: ((key: string) => Promise<void>)[];
  pairsDone: number;
  seconds: number;
  cpuMicros: number;
  serverMicros: number;
}

async function rig(server: RedisServer, variant: Variant, concurrency: number): Promise<Rig> {
  const clients = Array.from({ length: concurrency }, () => server.client());
  const pairs = clients.map((client) => variant.makePair(client));
  // Warm-up: connections, script cache, JIT.
  await Promise.all(
    pairs.map(async (pair, i) => {
      for (let n = 0; n < 200; n++) await pair(`bench:lock:${i}`);
    }),
  );
  return { variant, clients, pairs, pairsDone: 0, seconds: 0, cpuMicros: 0, serverMicros: 0 };
}

/** Runs every worker of `rig` for `seconds`, adding to its totals. */
async function slice(rig: Rig, seconds: number): Promise<void> {
  const admin = rig.clients[0];
  await admin.config('RESETSTAT');
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const counts = await Promise.all(
    rig.pairs.map(async (pair, i) => {
      let n = 0;
      for (const key = `bench:lock:${i}`; performance.now() < deadline; n++) await pair(key);
      return n;
    }),
  );
  rig.seconds += (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  rig.cpuMicros += cpu.user + cpu.system;
  rig.pairsDone += counts.reduce((sum, n) => sum + n, 0);
  // Every command's server time but the measurement's own.
  const stats = await admin.info('commandstats');
  for (const [, command, usec] of stats.matchAll(/^cmdstat_(\w+):calls=\d+,usec=(\d+)/gm)) {
    if (command !== 'info' && command !== 'config') rig.serverMicros += Number(usec);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '1' },
      rounds: { type: 'string', default: '8' },
      concurrency: { type: 'string', default: '1,8,32' },
      servers: { type: 'string', default: SERVER_KINDS.join(',') },
    },
  });
  const levels = values.concurrency.split(',').map(Number);
  const servers = values.servers.split(',') as ServerKind[];
  let targetsMet = true;
  for (const kind of servers) {
    targetsMet = (await benchServer(kind, Number(values.seconds), Number(values.rounds), levels)) && targetsMet;
  }
  console.log(
    `\ntargets: (a) >= 0.9x (b) and (a) > (c) at every concurrency; on Valkey (a) >= 0.95x (b): ${targetsMet ? 'met' : 'MISSED'}`,
  );
}

/** One server's table; true when its targets are met. */
async function benchServer(kind: ServerKind, seconds: number, rounds: number, levels: number[]): Promise<boolean> {
  const server = await startRedis({ server: kind });
  try {
    const probe = server.client();
    const info = await probe.info('server');
    const version = /(?:valkey|redis)_version:(\S+)/.exec(
      info.includes('valkey_version') ? info.replace(/redis_version/, '') : info,
    )?.[1];
    const path = await new LockScripts(probe, PACK).path();
    probe.disconnect();
    console.log(
      `\n${kind} ${version} on 127.0.0.1:${server.port}, Node ${process.version}, ${rounds} interleaved slices of ${seconds} s per cell`,
    );
    console.log(
      `(a) runs acquire with ${path.acquire}, release with ${path.release}; the two-key lock acquires with ${path.multiAcquire}`,
    );
    const variants = VARIANTS.filter((variant) => !variant.only || variant.only === kind);
    const native = variants.some((variant) => variant.only);
    const header = [
      'conc',
      ...variants.map((v) => v.name),
      '(a)/(b)',
      "(a')/(b)",
      ...(native ? ['(n)/(b)'] : []),
      '(a)/(c)',
    ];
    const rows: string[][] = [];
    const detail: string[] = [];
    let targetsMet = true;
    for (const concurrency of levels) {
      const rigs: Rig[] = [];
      for (const variant of variants) rigs.push(await rig(server, variant, concurrency));
      // Short slices, interleaved in rotating order, so drift on a shared machine hits all alike.
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < rigs.length; k++) await slice(rigs[(k + round) % rigs.length], seconds);
      }
      for (const { clients } of rigs) for (const client of clients) client.disconnect();
      const cells = rigs.map((r) => ({
        pairsPerSecond: r.pairsDone / r.seconds,
        clientCpuUsPerPair: r.cpuMicros / r.pairsDone,
        serverUsPerPair: r.serverMicros / r.pairsDone,
      }));
      const rate = (name: string) => cells[variants.findIndex((v) => v.name === name)].pairsPerSecond;
      const [pack, lua, raw, redlock] = ['pack', 'pack (Lua only)', 'SET NX PX + DEL', 'redlock'].map(rate);
      targetsMet &&= pack >= (kind === 'valkey' ? 0.95 : 0.9) * raw && pack > redlock;
      rows.push([
        String(concurrency),
        ...cells.map((c) => c.pairsPerSecond.toFixed(0)),
        (pack / raw).toFixed(2),
        (lua / raw).toFixed(2),
        ...(native ? [(rate('NX GET + DELIFEQ') / raw).toFixed(2)] : []),
        (pack / redlock).toFixed(2),
      ]);
      for (const [i, variant] of variants.entries()) {
        detail.push(
          `conc ${String(concurrency).padStart(2)}  ${variant.name.padEnd(16)} client CPU ${cells[i].clientCpuUsPerPair.toFixed(1).padStart(6)} us/pair   server ${cells[i].serverUsPerPair.toFixed(1).padStart(5)} us/pair`,
        );
      }
    }
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i])).join(' | ')} |`;
    console.log('acquire+release pairs per second');
    console.log(line(header));
    console.log(`|${widths.map((w) => '-'.repeat(w + 1) + ':').join('|')}|`);
    for (const row of rows) console.log(line(row));
    console.log('where the time goes (client CPU from process.cpuUsage, server: all of INFO commandstats)');
    for (const row of detail) console.log(row);
    return targetsMet;
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
