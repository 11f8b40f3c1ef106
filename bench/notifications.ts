// What keeping the Locks view current costs the server: commands per second a LockMonitor
// issues for one connection with 10,000 token locks (among 10,000 other keys) while a writer
// changes 100 locks a second, (a) polling as the view's timer does (a tick every 2 s: the listed
// locks re-read, new keys scanned for on the budgeted schedule; at the default page of 500 locks
// and at 10,000, every lock) against (b) keyspace
// notifications (each changed key re-read). Polling should cost O(locks), notifications
// O(changes). Also how fresh each keeps the listing. One throwaway redis-server; not a test.
//   BENCH_SECONDS=20 npm run bench:notifications     (seconds measured per mode)
//
// Commands issued by the view = the server's total_commands_processed over the window, minus
// the writer's commands (counted as sent) and the bench's INFO; cross-checked with INFO
// commandstats (every command but the writer's SET/PEXPIRE/DEL and INFO, which the view never sends).
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { Session } from '../extension/src/connections/session';
import { LockMonitor } from '../extension/src/locks/monitor';
import { startRedis, type RedisServer } from '../harness/redis';

const LOCKS = 10_000;
const OTHER_KEYS = 10_000;
const CHANGES_PER_SECOND = 100;
const TICK_MS = 100;
const CHANGES_PER_TICK = (CHANGES_PER_SECOND * TICK_MS) / 1000;
const LOCK_TTL = 600_000;
// The view's defaults: redisLocksmith.refreshInterval (2 s) and maxLocksPerConnection (500).
const REFRESH_MS = 2000;
const DEFAULT_LIMIT = 500;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
// The polling timer starts this long before the window, so no tick falls on one of its edges.
const LEAD_MS = REFRESH_MS / 2;
// After the window: the writer stops and the listing gets one more refresh to catch up.
const GRACE_MS = REFRESH_MS + 1000;
// Commands only the writer sends; the view reads (TYPE, PTTL, GETRANGE, GET, SCAN) and never writes.
const WRITER_COMMANDS = ['set', 'pexpire', 'del'];

const lockKey = (i: number) => `lock:bench:${i}`;
const newToken = (i: number) => `worker-${i}:${randomBytes(12).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

interface Stats {
  total: number;
  calls: Map<string, number>;
}

/** total_commands_processed and the calls per command, in one INFO (counted by the server as one INFO). */
async function snapshot(redis: Redis): Promise<Stats> {
  const text = (await redis.call('INFO', 'stats', 'commandstats')) as string;
  const total = Number(/^total_commands_processed:(\d+)/m.exec(text)?.[1]);
  if (!Number.isFinite(total)) throw new Error('INFO stats has no total_commands_processed');
  const calls = new Map<string, number>();
  for (const [, command, count] of text.matchAll(/^cmdstat_([\w|-]+):calls=(\d+)/gm)) calls.set(command, Number(count));
  return { total, calls };
}

function callsBetween(before: Stats, after: Stats): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [command, calls] of after.calls) {
    const n = calls - (before.calls.get(command) ?? 0);
    if (n) delta.set(command, n);
  }
  return delta;
}

async function seed(admin: Redis, tokens: string[]): Promise<void> {
  for (let from = 0; from < Math.max(LOCKS, OTHER_KEYS); from += 1000) {
    const pipe = admin.pipeline();
    for (let i = from; i < from + 1000; i++) {
      if (i < LOCKS) pipe.set(lockKey(i), (tokens[i] = newToken(i)), 'PX', LOCK_TTL);
      if (i < OTHER_KEYS) pipe.set(`cache:page:${i.toString(36)}`, `{"n":${i},"html":"${'x'.repeat(64)}"}`);
    }
    await pipe.exec();
  }
}

interface Mode {
  name: string;
  limit: number;
  live: boolean;
}

interface Probe {
  sentAt: number;
  token: Buffer;
  /** A PEXPIRE: the listing shows it once the lock's PTTL is in (low, high]. */
  ttl?: { low: number; high: number };
  listed: boolean;
}

interface Result {
  mode: Mode;
  seconds: number;
  /** By total_commands_processed. */
  viewCommands: number;
  /** By INFO commandstats. */
  viewCalls: Map<string, number>;
  writerCommands: number;
  writerCalls: number;
  changes: number;
  refreshes: number[];
  listedAtEnd: number;
  reflected: number;
  changesToListed: number;
  reflectedOfListed: number;
  latencies: number[];
}

/** Runs one mode: a fresh Session and LockMonitor, a writer, and the window measured between two INFOs on the writer's connection. */
async function run(server: RedisServer, writer: Redis, tokens: string[], mode: Mode, index: number): Promise<Result> {
  const session = new Session(
    { id: `bench-${index}`, name: mode.name, url: `redis://127.0.0.1:${server.port}/0` },
    undefined,
  );
  await session.connect();
  const monitor = new LockMonitor(session, () => ({ patterns: ['lock:*'], limit: mode.limit, intervalMs: 2000 }));
  let timer: NodeJS.Timeout | undefined;
  try {
    await monitor.refresh();
    if (monitor.snapshot().error) throw new Error(`${mode.name}: first read failed: ${monitor.snapshot().error}`);
    if (mode.live) {
      const live = await monitor.startLive();
      if (live.kind !== 'notifications') throw new Error(`${mode.name}: startLive() returned ${JSON.stringify(live)}`);
    }
    const listed = new Set(monitor.snapshot().locks.map((lock) => lock.key.toString('latin1')));

    // Freshness: each change is a probe until the listing shows it (the new token, or the new TTL).
    const probes = new Map<string, Probe>();
    const checked = new WeakSet<object>();
    const latencies: number[] = [];
    let reflectedOfListed = 0;
    monitor.onDidChange(() => {
      const now = performance.now();
      for (const lock of monitor.snapshot().locks) {
        // Entries are replaced when re-read, never changed: each is looked at once.
        if (checked.has(lock)) continue;
        checked.add(lock);
        if (probes.size === 0 || lock.kind !== 'token') continue;
        const id = lock.key.toString('latin1');
        const probe = probes.get(id);
        if (!probe || !lock.token.equals(probe.token)) continue;
        if (probe.ttl && !(lock.pttl > probe.ttl.low && lock.pttl <= probe.ttl.high)) continue;
        probes.delete(id);
        latencies.push(now - probe.sentAt);
        if (probe.listed) reflectedOfListed++;
      }
    });

    // As the view's timer: tick() every interval (re-reads the listed locks, scans when due).
    const refreshes: number[] = [];
    const inWindow = { from: Infinity, to: Infinity };
    if (!mode.live) {
      timer = setInterval(() => {
        if (monitor.snapshot().busy) return;
        const started = performance.now();
        void monitor.tick().then(() => {
          if (started >= inWindow.from && started < inWindow.to) refreshes.push(performance.now() - started);
        });
      }, REFRESH_MS);
    }
    await sleep(LEAD_MS);

    // Each key is changed at most once per mode, so a PEXPIRE's TTL band is its own.
    const order = Array.from({ length: LOCKS }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const band = { low: 1_000_000 * (index + 1), high: 1_000_000 * (index + 1) + 500_000 };
    const ticks = Math.round((SECONDS * 1000) / TICK_MS);
    let writerCommands = 0;
    let changes = 0;
    let changesToListed = 0;
    const before = await snapshot(writer);
    const start = performance.now();
    inWindow.from = start;
    for (let tick = 0; tick < ticks; tick++) {
      await sleep(start + tick * TICK_MS - performance.now());
      const pipe = writer.pipeline();
      const sentAt = performance.now();
      for (let n = 0; n < CHANGES_PER_TICK; n++, changes++) {
        const i = order[changes % LOCKS];
        const key = lockKey(i);
        const probe: Probe = { sentAt, token: Buffer.from(tokens[i]), listed: listed.has(key) };
        switch (changes % 3) {
          case 0: // a new owner takes the lock
            pipe.set(key, (tokens[i] = newToken(i)), 'PX', LOCK_TTL);
            probe.token = Buffer.from(tokens[i]);
            break;
          case 1: // the owner extends it
            pipe.pexpire(key, band.high);
            probe.ttl = band;
            break;
          default: // released, then taken again
            pipe.del(key);
            pipe.set(key, (tokens[i] = newToken(i)), 'PX', LOCK_TTL);
            probe.token = Buffer.from(tokens[i]);
        }
        probes.set(key, probe);
        if (probe.listed) changesToListed++;
      }
      writerCommands += pipe.length;
      const replies = (await pipe.exec()) ?? [];
      const failed = replies.find(([error]) => error);
      if (failed?.[0]) throw failed[0];
    }
    await sleep(start + ticks * TICK_MS - performance.now());
    inWindow.to = performance.now();
    const after = await snapshot(writer);
    const seconds = (inWindow.to - start) / 1000;

    await sleep(GRACE_MS);
    if (monitor.snapshot().error) throw new Error(`${mode.name}: reading failed: ${monitor.snapshot().error}`);
    const calls = callsBetween(before, after);
    const info = calls.get('info') ?? 0;
    const writerCalls = WRITER_COMMANDS.reduce((sum, command) => sum + (calls.get(command) ?? 0), 0);
    const viewCalls = new Map(
      [...calls].filter(([command]) => command !== 'info' && !WRITER_COMMANDS.includes(command)),
    );
    return {
      mode,
      seconds,
      viewCommands: after.total - before.total - writerCommands - info,
      viewCalls,
      writerCommands,
      writerCalls,
      changes,
      refreshes,
      listedAtEnd: monitor.snapshot().locks.length,
      reflected: latencies.length,
      changesToListed,
      reflectedOfListed,
      latencies,
    };
  } finally {
    clearInterval(timer);
    monitor.dispose();
    session.dispose();
  }
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const sum = (calls: Map<string, number>) => [...calls.values()].reduce((a, b) => a + b, 0);
const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(0));

async function main(): Promise<void> {
  if (!(SECONDS > 0))
    throw new Error(`BENCH_SECONDS must be a positive number of seconds, got ${process.env.BENCH_SECONDS}`);
  const server = await startRedis();
  const admin = server.client();
  const writer = server.client();
  let failed = false;
  try {
    const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1];
    await admin.config('SET', 'notify-keyspace-events', '');
    const tokens: string[] = [];
    await seed(admin, tokens);
    const dbsize = await admin.dbsize();
    console.log(
      `redis-server ${version}, ${dbsize.toLocaleString('en')} keys of which ${LOCKS.toLocaleString('en')} token locks (lock:bench:*), ` +
        `${CHANGES_PER_SECOND} lock changes/s (${CHANGES_PER_TICK} every ${TICK_MS} ms: SET PX, PEXPIRE, DEL + SET), ` +
        `${SECONDS} s measured per mode, polling every ${REFRESH_MS / 1000} s, Node ${process.version}\n`,
    );

    const modes: Mode[] = [
      { name: `polling, limit ${DEFAULT_LIMIT}`, limit: DEFAULT_LIMIT, live: false },
      { name: `polling, limit ${LOCKS.toLocaleString('en')}`, limit: LOCKS, live: false },
      { name: 'notifications', limit: LOCKS, live: true },
    ];
    const results: Result[] = [];
    for (const [index, mode] of modes.entries()) {
      if (mode.live) await admin.config('SET', 'notify-keyspace-events', 'K$gx');
      results.push(await run(server, writer, tokens, mode, index));
      if (mode.live) await admin.config('SET', 'notify-keyspace-events', '');
    }

    const header = [
      'mode',
      'view cmds/s',
      '(commandstats)',
      'SCAN/s',
      'reads/s',
      'tick ms',
      'listed',
      'changes shown',
      'of listed keys',
      'latency p50 ms',
      'p95 ms',
      'max ms',
    ];
    const rows = results.map((r) => [
      r.mode.name,
      (r.viewCommands / r.seconds).toFixed(0),
      (sum(r.viewCalls) / r.seconds).toFixed(0),
      ((r.viewCalls.get('scan') ?? 0) / r.seconds).toFixed(1),
      ((r.viewCalls.get('type') ?? 0) / r.seconds).toFixed(0),
      r.refreshes.length ? `${ms(percentile(r.refreshes, 50))} (${r.refreshes.length}x)` : '-',
      r.listedAtEnd.toLocaleString('en'),
      `${r.reflected}/${r.changes}`,
      `${r.reflectedOfListed}/${r.changesToListed}`,
      ms(percentile(r.latencies, 50)),
      ms(percentile(r.latencies, 95)),
      ms(r.latencies.length ? r.latencies.reduce((max, value) => Math.max(max, value), 0) : NaN),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) =>
      `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
    console.log(line(header));
    console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|')}|`);
    for (const row of rows) console.log(line(row));
    console.log(
      "\nview cmds/s: total_commands_processed minus the writer's and the bench's INFO; (commandstats): the same from INFO commandstats." +
        '\nreads/s: keys read (one TYPE each). changes shown: writer changes the listing showed by ' +
        `${GRACE_MS / 1000} s after the window (new token, or the new TTL), of listed keys: of changes to keys listed when the window began.`,
    );

    console.log('\nper command over the window (calls/s):');
    for (const r of results) {
      const perCommand = [...r.viewCalls]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([command, n]) => `${command} ${(n / r.seconds).toFixed(1)}`);
      console.log(`  ${r.mode.name.padEnd(24)} ${perCommand.join(', ') || 'none'}`);
    }
    for (const r of results) {
      console.log(
        `writer during ${r.mode.name}: ${(r.changes / r.seconds).toFixed(1)} changes/s, ${(r.writerCommands / r.seconds).toFixed(1)} commands/s ` +
          `(${r.writerCommands} sent, ${r.writerCalls} SET/PEXPIRE/DEL by commandstats) over ${r.seconds.toFixed(2)} s`,
      );
    }

    const [poll500, pollAll, live] = results;
    const perSecond = (r: Result) => r.viewCommands / r.seconds;
    console.log(
      `\npolling(${LOCKS.toLocaleString('en')}) / notifications = ${(perSecond(pollAll) / perSecond(live)).toFixed(1)}x the commands` +
        `\npolling(${DEFAULT_LIMIT}) / notifications = ${(perSecond(poll500) / perSecond(live)).toFixed(1)}x the commands` +
        `\nview commands per lock change with notifications: ${(live.viewCommands / live.changes).toFixed(2)}`,
    );

    for (const r of results) {
      if (r.viewCommands !== sum(r.viewCalls) || r.writerCommands !== r.writerCalls) {
        console.log(
          `note: ${r.mode.name}: the two counts differ (view ${r.viewCommands} vs ${sum(r.viewCalls)}, writer ${r.writerCommands} vs ${r.writerCalls})`,
        );
      }
    }
    if (live.reflected === 0 || live.reflected < live.changes) {
      console.error(`FAILED: with notifications the listing showed ${live.reflected} of ${live.changes} changes`);
      failed = true;
    }
  } finally {
    admin.disconnect();
    writer.disconnect();
    await server.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
