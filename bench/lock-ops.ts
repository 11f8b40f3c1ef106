// Acquire+release pairs per second, each worker on its own key, against one throwaway server per
// kind (Debian's Redis 7.0, Valkey 9): (a) the pack as LockScripts runs it (the native path where
// the server has it: SET NX GET, then DELIFEQ + SPUBLISH in one round trip), (a') the pack's Lua scripts only
// (EVALSHA), (b) raw SET NX PX + DEL (the unsafe floor), (c) npm redlock on the same single
// instance; on Valkey also (n) SET NX GET + DELIFEQ without the wake-up, which is what the wake-up
// costs; and a two-key lock (LockScripts.multi: MSETEX NX where the server has it, else
// multi_acquire.lua) against the same through the scripts only. Prints a table per server. Then
// what waitForReplicas costs (docs/dev/wait-for-replicas.md), on a master with one replica: acquires per second
// and acquire latency at 1 and 8 connections with and without it, the acquires it gave back as the
// replica did not acknowledge within 100 ms (shortfalls: stalls of a loaded machine), and its round
// trips (an acquire's latency through a proxy adding 5 ms each way, over 10 ms). Not a test.
//   npm run bench:lock-ops -- [--seconds 1] [--rounds 8] [--concurrency 1,8,32] [--servers redis,valkey]
//     [--wait-for-replicas yes|no|only]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import Redlock from 'redlock';
import { loadPack } from '../pack/pack';
import { LockScripts, ReplicaShortfallError } from '../pack/runtime';
import { startProxy } from '../harness/proxy';
import { SERVER_KINDS, startRedis, type RedisServer, type ServerKind } from '../harness/redis';

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
      'wait-for-replicas': { type: 'string', default: 'yes' },
    },
  });
  const levels = values.concurrency.split(',').map(Number);
  const servers = values.servers.split(',') as ServerKind[];
  const replicaWait = values['wait-for-replicas'];
  if (!['yes', 'no', 'only'].includes(replicaWait))
    throw new Error(`--wait-for-replicas takes yes, no or only, got ${replicaWait}`);
  if (replicaWait !== 'only') {
    let targetsMet = true;
    for (const kind of servers) {
      targetsMet = (await benchServer(kind, Number(values.seconds), Number(values.rounds), levels)) && targetsMet;
    }
    console.log(
      `\ntargets: (a) >= 0.9x (b) and (a) > (c) at every concurrency; on Valkey (a) >= 0.95x (b): ${targetsMet ? 'met' : 'MISSED'}`,
    );
  }
  if (replicaWait !== 'no') {
    for (const kind of servers) await benchReplicaWait(kind, Number(values.seconds), Number(values.rounds));
  }
}

/** acquire (a) without and (w) with waitForReplicas, then release; each connection on its own key. */
const REPLICA_VARIANTS = [
  { name: 'acquire', options: {} },
  { name: 'acquire + waitForReplicas', options: { waitForReplicas: { replicas: 1, timeoutMs: 100 } } },
] as const;

/** What waitForReplicas costs on a master with one replica (loopback: the replica acknowledges within a round trip). */
async function benchReplicaWait(kind: ServerKind, seconds: number, rounds: number): Promise<void> {
  const master = await startRedis({ server: kind, args: ['--repl-diskless-sync-delay', '0'] });
  const replica = await startRedis({
    server: kind,
    args: ['--repl-diskless-sync-delay', '0', '--replicaof', '127.0.0.1', String(master.port)],
  });
  try {
    const probe = master.client();
    await probe.set('bench:sync', '1');
    if ((await probe.wait(1, 10_000)) !== 1) throw new Error('the replica did not sync');
    probe.disconnect();
    console.log(
      `\n${kind}: waitForReplicas {replicas: 1, timeoutMs: 100} on a master with one replica, ${rounds} interleaved slices of ${seconds} s`,
    );
    console.log(
      '| conc | variant | acquire+release/s | acquire p50 us | acquire p99 us | shortfalls | (w)/(a) pairs/s | (w)/(a) p50 |',
    );
    console.log('|---:|---|---:|---:|---:|---:|---:|---:|');
    for (const concurrency of [1, 8]) {
      const cells = REPLICA_VARIANTS.map(() => ({ pairs: 0, seconds: 0, shortfalls: 0, latencies: [] as number[] }));
      const rigs = REPLICA_VARIANTS.map(() => {
        const clients = Array.from({ length: concurrency }, () => master.client());
        return { clients, locks: clients.map((client) => new LockScripts(client, PACK)) };
      });
      for (let round = 0; round < rounds + 1; round++) {
        for (let k = 0; k < REPLICA_VARIANTS.length; k++) {
          const v = (k + round) % REPLICA_VARIANTS.length;
          const { options } = REPLICA_VARIANTS[v];
          // Round 0 warms up (connections, script cache) and is not counted.
          const cell = round === 0 ? { pairs: 0, seconds: 0, shortfalls: 0, latencies: [] as number[] } : cells[v];
          const started = performance.now();
          const deadline = started + seconds * 1000;
          await Promise.all(
            rigs[v].locks.map(async (locks, i) => {
              const key = `bench:replicas:${i}`;
              while (performance.now() < deadline) {
                const owner = token();
                const sent = performance.now();
                try {
                  if ((await locks.acquire(key, owner, TTL, options)) === 0) throw new Error(`${key} not acquired`);
                } catch (error) {
                  // A replica that did not acknowledge in time (a stall on a loaded machine) is the
                  // option doing its job: counted, its wait timed, the lock already given back.
                  if (!(error instanceof ReplicaShortfallError)) throw error;
                  cell.latencies.push(performance.now() - sent);
                  cell.shortfalls++;
                  continue;
                }
                cell.latencies.push(performance.now() - sent);
                if (!(await locks.release(key, owner))) throw new Error(`${key} not released`);
                cell.pairs++;
              }
            }),
          );
          cell.seconds += (performance.now() - started) / 1000;
        }
      }
      for (const { clients, locks } of rigs) {
        for (const each of locks) each.close();
        for (const client of clients) client.disconnect();
      }
      const rate = cells.map((cell) => cell.pairs / cell.seconds);
      const p50 = cells.map((cell) => percentile(cell.latencies, 0.5));
      for (const [i, variant] of REPLICA_VARIANTS.entries()) {
        const ratios = i === 0 ? ['', ''] : [(rate[i] / rate[0]).toFixed(2), (p50[i] / p50[0]).toFixed(2)];
        console.log(
          `| ${concurrency} | ${variant.name} | ${rate[i].toFixed(0)} | ${(p50[i] * 1000).toFixed(0)} | ${(percentile(cells[i].latencies, 0.99) * 1000).toFixed(0)} | ${cells[i].shortfalls} | ${ratios.join(' | ')} |`,
        );
      }
    }
    console.log(`round trips per acquire: ${(await roundTrips(master)).join(', ')}`);
  } finally {
    await replica.stop();
    await master.stop();
  }
}

/** An acquire's round trips: its median latency through a proxy that adds 5 ms each way, over 10 ms. */
async function roundTrips(master: RedisServer): Promise<string[]> {
  const proxy = await startProxy(master.port);
  const client = new Redis({ host: proxy.host, port: proxy.port });
  const locks = new LockScripts(client, PACK);
  try {
    await locks.load();
    proxy.setLatency(5);
    const lines: string[] = [];
    // One variant at a time: they share the connection.
    for (const [v, { name, options }] of REPLICA_VARIANTS.entries()) {
      const latencies: number[] = [];
      for (let i = 0; i < 21; i++) {
        const owner = token();
        const sent = performance.now();
        await locks.acquire(`bench:trips:${v}`, owner, TTL, options);
        latencies.push(performance.now() - sent);
        await locks.release(`bench:trips:${v}`, owner);
      }
      lines.push(`${name} ${(percentile(latencies, 0.5) / 10).toFixed(1)}`);
    }
    return lines;
  } finally {
    locks.close();
    client.disconnect();
    await proxy.close();
  }
}

/** The `p` quantile (0..1) of `values`, in the same unit. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
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
