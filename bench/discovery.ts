// Lock discovery on a big keyspace: 1,000,000 keys of which 10,000 match the default lock
// patterns, in one throwaway redis-server. Times (a) discoverLocks reading every lock with its
// details against (b) the floor: one SCAN MATCH COUNT 1000 loop per pattern, back to back,
// then one pipeline of PTTL + GET for the keys found. Prints a table; not a test.
//   node --import tsx bench/discovery.ts [--rounds 5] [--keys 1000000] [--locks 10000]
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import type Redis from 'ioredis';
import { DEFAULT_LOCK_PATTERNS, discoverLocks } from '../extension/src/locks/discovery';
import { startRedis, type RedisServer } from '../harness/redis';

const SLOW_MICROS = 10_000;

function resp(args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/** The commands that make lock `i` of `locks`: every kind the view knows, TTLs of 10 to 60 min. */
function lockCommands(i: number, locks: number): string[][] {
  const ttl = String(600_000 + Math.floor(Math.random() * 3_000_000));
  const share = i / locks;
  if (share < 0.6) {
    const commands = [
      ['SET', `lock:{order:${i}}`, `api-${i % 7}:${1000 + (i % 50)}:${randomBytes(8).toString('hex')}`, 'PX', ttl],
    ];
    if (i % 3 === 0) commands.push(['SET', `fence:{order:${i}}`, String(i * 7)]);
    return commands;
  }
  if (share < 0.7) return [['SET', `redlock:resource:${i}`, randomBytes(16).toString('hex'), 'PX', ttl]];
  if (share < 0.8) return [['SET', `jobs:${i}:lock`, randomUUID()]]; // no TTL
  if (share < 0.85) return [['SET', `lock.legacy.${i}`, String(Math.floor(Date.now() / 1000) + (i % 600) - 300)]];
  if (share < 0.95)
    return [
      ['HSET', `app:lock:${i}`, `${randomUUID()}:${i % 64}`, String(1 + (i % 3))],
      ['PEXPIRE', `app:lock:${i}`, ttl],
    ];
  if (share < 0.98) return [['RPUSH', `locks:queue:${i}`, 'a', 'b', 'c']];
  return [['SET', `job-lock:default:${i}`, `ADDED:${new Date().toISOString()}@api-${i % 7}`, 'PX', ttl]];
}

/** Keys that match no lock pattern; one in a hundred contains "lock" all the same. */
function fillerCommand(i: number): string[] {
  switch (i % 100) {
    case 0:
      return ['SET', `clock:tick:${i}`, String(i)];
    case 1:
      return ['SET', `user:${i}:blocklist`, 'none'];
    default:
      return ['SET', `${['user', 'session', 'cache:page', 'order'][i % 4]}:${i.toString(36)}`, `{"n":${i}}`];
  }
}

/** Loads `keys` keys of which `locks` are locks through `redis-cli --pipe`. */
async function load(server: RedisServer, keys: number, locks: number): Promise<void> {
  const cli = spawn('redis-cli', ['-p', String(server.port), '--pipe'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  cli.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let commands: string[] = [];
  let keysMade = 0;
  const flush = async () => {
    if (!cli.stdin.write(commands.join(''))) await once(cli.stdin, 'drain');
    commands = [];
  };
  for (let i = 0; i < locks; i++) {
    for (const command of lockCommands(i, locks)) {
      commands.push(resp(command));
      if (command[0] !== 'PEXPIRE') keysMade++;
    }
    if (commands.length >= 10_000) await flush();
  }
  for (let i = 0; keysMade < keys; i++, keysMade++) {
    commands.push(resp(fillerCommand(i)));
    if (commands.length >= 10_000) await flush();
  }
  await flush();
  cli.stdin.end();
  const [code] = (await once(cli, 'exit')) as [number | null];
  if (code !== 0 || !/errors: 0,/.test(output)) throw new Error(`redis-cli --pipe failed (${code}): ${output}`);
}

interface Run {
  ms: number;
  found: number;
  scans: number;
  serverMs: number;
  clientCpuMs: number;
  /** SLOWLOG entries: command name and microseconds. */
  slow: [command: string, micros: number][];
}

async function measure(admin: Redis, work: () => Promise<number>): Promise<Run> {
  await admin.config('RESETSTAT');
  await admin.slowlog('RESET');
  const cpu = process.cpuUsage();
  const started = performance.now();
  const found = await work();
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const stats = await admin.info('commandstats');
  let serverMicros = 0;
  // Everything but the admin connection's own INFO/CONFIG/SLOWLOG.
  for (const [, command, usec] of stats.matchAll(/cmdstat_(\w+):calls=\d+,usec=(\d+)/g)) {
    if (!['info', 'config', 'slowlog'].includes(command)) serverMicros += Number(usec);
  }
  const scans = Number(/cmdstat_scan:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  const slow = (await admin.slowlog('GET', 128)) as [number, number, number, string[]][];
  return {
    ms,
    found,
    scans,
    serverMs: serverMicros / 1000,
    clientCpuMs: (user + system) / 1000,
    slow: slow.map(([, , micros, [command]]) => [command.toUpperCase(), micros]),
  };
}

/** (a) the scanner: every lock with its details, in one call. */
async function scanner(client: Redis): Promise<number> {
  const { entries, next } = await discoverLocks(client, { limit: Infinity });
  if (next) throw new Error('a limit of Infinity should read everything');
  return entries.length;
}

/**
 * (b) the floor: what `redis-cli --scan --count 1000 --pattern P` does, for each pattern back
 * to back (the Debian redis-cli 7.0 has no --count, and its default COUNT of 10 would make a
 * slower floor, so the loop is ioredis's), then ONE ioredis pipeline of PTTL + GET of the keys.
 */
async function floor(client: Redis): Promise<number> {
  const keys = new Map<string, Buffer>();
  for (const pattern of DEFAULT_LOCK_PATTERNS) {
    let cursor = '0';
    do {
      const [next, found] = await client.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next.toString();
      for (const key of found) keys.set(key.toString('latin1'), key);
    } while (cursor !== '0');
  }
  const pipe = client.pipeline();
  for (const key of keys.values()) pipe.pttl(key).getBuffer(key);
  await pipe.exec();
  return keys.size;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '5' },
      keys: { type: 'string', default: '1000000' },
      locks: { type: 'string', default: '10000' },
    },
  });
  const rounds = Number(values.rounds);
  const server = await startRedis();
  const admin = server.client();
  try {
    // SLOWLOG measures wall time: on a busy machine the OS can stop redis-server for 20 ms in
    // the middle of an O(1) STRLEN. A higher priority (root only) keeps that noise out of it.
    let priority = 'normal priority';
    try {
      setPriority(server.pid!, -10);
      priority = 'nice -10';
    } catch {
      // not root: measure as is
    }
    await admin.config('SET', 'slowlog-log-slower-than', String(SLOW_MICROS));
    const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1];
    const loadStarted = performance.now();
    const locks = Number(values.locks);
    await load(server, Number(values.keys), locks);
    const dbsize = await admin.dbsize();
    console.log(
      `redis-server ${version}, ${dbsize.toLocaleString('en')} keys of which ${locks.toLocaleString('en')} match ` +
        `${DEFAULT_LOCK_PATTERNS.length} patterns (loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s), ` +
        `redis-server at ${priority}, Node ${process.version}, ${rounds} interleaved rounds after a warm-up\n`,
    );

    const variants = [
      { name: '(a) discoverLocks, with details', work: scanner, runs: [] as Run[] },
      { name: '(b) floor: SCAN per pattern + 1 pipeline', work: floor, runs: [] as Run[] },
    ];
    // Round 0 warms up (JIT, the server's caches) and is not counted.
    for (let round = 0; round <= rounds; round++) {
      // Rotating order, so drift on a shared machine hits both alike.
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(k + round) % variants.length];
        const client = server.client();
        await client.ping();
        const run = await measure(admin, () => variant.work(client));
        client.disconnect();
        if (run.found !== locks) throw new Error(`${variant.name} found ${run.found} keys, not ${locks}`);
        if (round > 0) variant.runs.push(run);
      }
    }

    const header = [
      'variant',
      'median ms',
      'min ms',
      'max ms',
      'SCANs',
      'server ms',
      'client CPU ms',
      'slowlog >10ms',
      'slowest us',
    ];
    const rows = variants.map(({ name, runs }) => [
      name,
      median(runs.map((r) => r.ms)).toFixed(0),
      Math.min(...runs.map((r) => r.ms)).toFixed(0),
      Math.max(...runs.map((r) => r.ms)).toFixed(0),
      String(median(runs.map((r) => r.scans))),
      median(runs.map((r) => r.serverMs)).toFixed(0),
      median(runs.map((r) => r.clientCpuMs)).toFixed(0),
      String(runs.reduce((sum, r) => sum + r.slow.length, 0)),
      String(Math.max(0, ...runs.flatMap((r) => r.slow.map(([, micros]) => micros)))),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) =>
      `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
    console.log(line(header));
    console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|')}|`);
    for (const row of rows) console.log(line(row));
    const ratio = median(variants[0].runs.map((r) => r.ms)) / median(variants[1].runs.map((r) => r.ms));
    console.log(`\n(a)/(b) = ${ratio.toFixed(2)} (target <= 1.2): ${ratio <= 1.2 ? 'met' : 'MISSED'}`);
    const slow = variants[0].runs.flatMap((r) => r.slow).sort(([, a], [, b]) => b - a);
    console.log(
      `slowest command during (a), by SLOWLOG: ${slow.length ? `${(slow[0][1] / 1000).toFixed(1)} ms` : `none over ${SLOW_MICROS / 1000} ms`} ` +
        `(target: none over ${SLOW_MICROS / 1000} ms)`,
    );
    if (slow.length) {
      // SLOWLOG is wall time: an O(1) command stopped by the OS on a busy machine shows here too,
      // as do the floor's plain SCANs. test/locks-discovery.test.ts re-runs such commands.
      console.log(
        `  over ${SLOW_MICROS / 1000} ms: ${slow.map(([command, micros]) => `${command} ${(micros / 1000).toFixed(1)} ms`).join(', ')}`,
      );
    }
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
