// What the Locks view costs a big production server that publishes no keyspace notifications:
// 1,000,000 keys, of which 50 or 10,000 are locks, one LockMonitor with the default settings
// (the 7 default patterns, a page of 500, the view's timer every 2 s), for (a) the view's tick
// (listed locks re-read, new keys scanned for on the 2 % budget) against (b) what the view did
// before, a full scan on every tick, measured in the same run on the same server. Per variant:
// the server's main-thread CPU spent per second of wall time (INFO cpu), SCAN calls per minute,
// how long a new lock takes to appear in the listing, and how long a listed lock's new owner takes.
// Last, what the view's INFO replication (read with each of its reads, for the connection's
// tooltip) costs: its calls per minute in (a) times its measured time per call on the same server,
// as a share of (a)'s server CPU. One throwaway redis-server; not a test.
//   BENCH_SECONDS=90 npm run bench:polling     (seconds measured per variant; default 90)
import type Redis from 'ioredis';
import { Session } from '../extension/src/connections/session';
import { DEFAULT_LOCK_PATTERNS } from '../extension/src/locks/discovery';
import { LockMonitor } from '../extension/src/locks/monitor';
import { startRedis } from '../harness/redis';

const KEYS = 1_000_000;
const REFRESH_MS = 2000;
const LIMIT = 500;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 90);
// A new lock every this many ms while measuring; each is timed until the listing shows it.
const PROBE_EVERY_MS = 7_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Main-thread CPU seconds (user + sys), SCAN and INFO calls so far (the INFO that reads them not counted). */
async function serverCost(redis: Redis): Promise<{ cpu: number; scans: number; infos: number }> {
  const text = (await redis.call('INFO', 'cpu', 'commandstats')) as string;
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1]);
  const cpu = field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread');
  if (!Number.isFinite(cpu)) throw new Error('INFO cpu has no used_cpu_*_main_thread (Redis 6.2 or later)');
  const calls = (command: string) => Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { cpu, scans: calls('scan'), infos: calls('info') };
}

/** INFO replication's server time per call on this server, from commandstats over `calls` of it. */
async function infoReplicationMicros(redis: Redis, calls: number): Promise<number> {
  await redis.config('RESETSTAT');
  for (let i = 0; i < calls; i++) await redis.info('replication');
  const [, count, usec] = /^cmdstat_info:calls=(\d+),usec=(\d+)/m.exec(await redis.info('commandstats')) ?? [];
  if (Number(count) !== calls) throw new Error(`commandstats counted ${count} INFO calls, not ${calls}`);
  return Number(usec) / calls;
}

interface Row {
  scenario: string;
  variant: string;
  cpuPercent: number;
  scansPerMinute: number;
  /** The view's INFO calls (INFO replication, with each read). */
  infosPerMinute: number;
  newLock: number[];
  newLockMissed: number;
  newOwner: number[];
}

const percentile = (values: number[], p: number) =>
  values.length
    ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]
    : NaN;

async function measure(port: number, admin: Redis, scenario: string, variant: 'tick' | 'full scan'): Promise<Row> {
  const session = new Session({ id: variant, name: variant, url: `redis://127.0.0.1:${port}/0` }, undefined);
  await session.connect();
  const monitor = new LockMonitor(session, () => ({
    patterns: DEFAULT_LOCK_PATTERNS,
    limit: LIMIT,
    intervalMs: REFRESH_MS,
  }));
  const row: Row = {
    scenario,
    variant,
    cpuPercent: 0,
    scansPerMinute: 0,
    infosPerMinute: 0,
    newLock: [],
    newLockMissed: 0,
    newOwner: [],
  };
  const pending = new Map<string, { at: number; kind: 'lock' | 'owner'; token: string }>();
  const check = () => {
    const now = performance.now();
    for (const lock of monitor.snapshot().locks) {
      const probe = pending.get(lock.key.toString());
      if (!probe || lock.kind !== 'token' || lock.token.toString() !== probe.token) continue;
      (probe.kind === 'lock' ? row.newLock : row.newOwner).push(now - probe.at);
      pending.delete(lock.key.toString());
    }
  };
  monitor.onDidChange(check);
  let timer: NodeJS.Timeout | undefined;
  try {
    await monitor.refresh();
    const listed = monitor.snapshot().locks.filter((lock) => lock.kind === 'token');
    timer = setInterval(() => void (variant === 'tick' ? monitor.tick() : monitor.refresh()), REFRESH_MS);
    const before = await serverCost(admin);
    const start = performance.now();
    for (let probe = 0; performance.now() - start < SECONDS * 1000; probe++) {
      const token = `probe-${variant}:${probe}:${Date.now().toString(36)}`;
      await admin.set(`lock:probe:${variant}:${probe}`, token, 'PX', 600_000);
      pending.set(`lock:probe:${variant}:${probe}`, { at: performance.now(), kind: 'lock', token });
      const owned = listed[probe % listed.length];
      if (owned) {
        const ownerToken = `owner-${variant}:${probe}:${Date.now().toString(36)}`;
        await admin.set(owned.key, ownerToken, 'PX', 600_000);
        pending.set(owned.key.toString(), { at: performance.now(), kind: 'owner', token: ownerToken });
      }
      await sleep(Math.min(PROBE_EVERY_MS, start + SECONDS * 1000 - performance.now()));
    }
    const after = await serverCost(admin);
    const seconds = (performance.now() - start) / 1000;
    row.cpuPercent = ((after.cpu - before.cpu) / seconds) * 100;
    row.scansPerMinute = ((after.scans - before.scans) / seconds) * 60;
    // The bench's own INFO before the window is counted in `after`.
    row.infosPerMinute = ((after.infos - before.infos - 1) / seconds) * 60;
    row.newLockMissed = [...pending.values()].filter((probe) => probe.kind === 'lock').length;
    return row;
  } finally {
    clearInterval(timer);
    monitor.dispose();
    session.dispose();
  }
}

async function main(): Promise<void> {
  if (!(SECONDS > 0)) throw new Error(`BENCH_SECONDS must be a positive number, got ${process.env.BENCH_SECONDS}`);
  // DEBUG POPULATE fills the keyspace in seconds.
  const server = await startRedis({ args: ['--enable-debug-command', 'local'] });
  const admin = server.client();
  try {
    const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1];
    await admin.config('SET', 'notify-keyspace-events', '');
    const rows: Row[] = [];
    for (const locks of [50, 10_000]) {
      await admin.flushall();
      await admin.call('DEBUG', 'POPULATE', String(KEYS - locks), 'data');
      for (let from = 0; from < locks; from += 1000) {
        const pipe = admin.pipeline();
        for (let i = from; i < Math.min(locks, from + 1000); i++)
          pipe.set(`lock:job:${i}`, `worker-${i}:1:${i.toString(36)}`, 'PX', 3_600_000);
        await pipe.exec();
      }
      const scenario = `${(await admin.dbsize()).toLocaleString('en')} keys, ${locks.toLocaleString('en')} locks`;
      // Interleaved: the earlier behaviour first, then the tick, on the same data.
      for (const variant of ['full scan', 'tick'] as const)
        rows.push(await measure(server.port, admin, scenario, variant));
    }
    console.log(
      `redis-server ${version}, notifications off, the 7 default patterns, page ${LIMIT}, timer every ${REFRESH_MS / 1000} s, ` +
        `${SECONDS} s per variant, a new lock and a new owner every ${PROBE_EVERY_MS / 1000} s, Node ${process.version}\n`,
    );
    const header = [
      'keyspace',
      'variant',
      'server CPU %',
      'SCAN/min',
      'new lock shown p50 / max s',
      'not shown',
      'new owner shown max s',
    ];
    const text = (ms: number) => (Number.isNaN(ms) ? '-' : (ms / 1000).toFixed(1));
    const table = rows.map((row) => [
      row.scenario,
      row.variant === 'tick' ? '(a) tick: re-read + budgeted scans' : '(b) before: full scan every tick',
      row.cpuPercent.toFixed(2),
      row.scansPerMinute.toFixed(0),
      `${text(percentile(row.newLock, 50))} / ${text(row.newLock.length ? Math.max(...row.newLock) : NaN)}`,
      String(row.newLockMissed),
      text(row.newOwner.length ? Math.max(...row.newOwner) : NaN),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((cells) => cells[i].length)));
    const line = (cells: string[]) =>
      `| ${cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
    console.log(line(header));
    console.log(`|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
    for (const cells of table) console.log(line(cells));
    for (let i = 0; i + 1 < rows.length; i += 2) {
      const [before, after] = [rows[i], rows[i + 1]];
      console.log(
        `${after.scenario}: (a)/(b) server CPU ${(after.cpuPercent / before.cpuPercent).toFixed(3)}x, SCAN calls ${(after.scansPerMinute / before.scansPerMinute).toFixed(3)}x`,
      );
    }
    console.log(
      '\nnot shown: new locks still waiting at the end of the window (made after the last scan). With 10,000 locks the page of 500 is full: a new lock beyond it waits for Load more, in both variants.',
    );
    const micros = await infoReplicationMicros(admin, 2000);
    for (const row of rows.filter((each) => each.variant === 'tick')) {
      const percent = ((row.infosPerMinute / 60) * micros) / 1e4;
      console.log(
        `${row.scenario}: (a)'s INFO replication ${row.infosPerMinute.toFixed(1)}/min x ${micros.toFixed(1)} us = ` +
          `${percent.toFixed(5)} % of a core, ${((percent / row.cpuPercent) * 100).toFixed(2)} % of (a)'s server CPU`,
      );
    }
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
