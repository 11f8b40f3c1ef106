// Lock histories for the timeline renderer's tests and benchmark, shaped as the history model
// sends them (protocol.ts): seeded, so every run draws the same picture.
import { random } from '../bench/lint-corpus';
import type {
  HoldEnd,
  TimelineData,
  TimelineDelta,
  TimelineHold,
  TimelineWaiters,
} from '../extension/src/timeline/protocol';

const token = (rand: () => number) => Array.from({ length: 16 }, () => Math.floor(rand() * 16).toString(16)).join('');

/** How holds end in a busy, mostly healthy system. */
function pickEnd(rand: () => number): HoldEnd {
  const roll = rand();
  if (roll < 0.86) return 'released';
  if (roll < 0.92) return 'expired';
  if (roll < 0.95) return 'forced';
  if (roll < 0.99) return 'overwritten';
  return 'evicted';
}

export interface SyntheticOptions {
  keys: number;
  holds: number;
  now: number;
  /** How far back the history reaches. */
  spanMs: number;
  owners: number;
  seed: number;
}

/**
 * `holds` holds spread over `keys` keys within the last `spanMs`: each key held one owner at a
 * time, most holds released, some expired, forced, overwritten or evicted, some still held;
 * every tenth key read by polling (approximate), every seventh with waiters counted.
 */
export function syntheticHistory(options: SyntheticOptions): TimelineData {
  const rand = random(options.seed);
  const owners = Array.from({ length: options.owners }, (_, i) => `worker-${i + 1}#${1000 + i * 37}`);
  const holds: TimelineHold[] = [];
  const waiters: TimelineWaiters[] = [];
  const perKey = options.holds / options.keys;
  let id = 1;
  for (let k = 0; k < options.keys; k++) {
    const key = `lock:orders:${k}`;
    const count = Math.floor(perKey * (k + 1)) - Math.floor(perKey * k);
    const slot = options.spanMs / Math.max(1, count);
    const approximate = k % 10 === 3;
    for (let h = 0; h < count; h++) {
      const from = options.now - options.spanMs + h * slot + rand() * slot * 0.3;
      const length = slot * (0.2 + rand() * 0.6);
      const open = h === count - 1 && k % 3 === 0;
      const hold: TimelineHold = {
        id: id++,
        key,
        owner: owners[Math.floor(rand() * owners.length)],
        token: token(rand),
        from,
        extensions: length > 20_000 ? [from + length / 3, from + (2 * length) / 3] : [],
        leaseMs: 30_000,
        approximate,
      };
      if (!open) {
        hold.to = Math.min(options.now, from + length);
        hold.end = pickEnd(rand);
      }
      holds.push(hold);
    }
    if (k % 7 === 0) {
      const samples: Array<[number, number]> = [];
      for (let at = options.now - options.spanMs; at < options.now; at += 5_000) {
        samples.push([at, Math.floor(rand() * 4)]);
      }
      waiters.push({ key, samples });
    }
  }
  return {
    connection: 'synthetic',
    connectionId: 'synthetic',
    now: options.now,
    holds,
    waiters,
    gaps: [],
    observation: { kind: 'events', since: options.now - options.spanMs },
  };
}

/**
 * A live stream: each delta ends `perDelta` held locks (or starts holds on free keys) at `at`,
 * continuing the ids after `history`'s.
 */
export function liveDeltas(history: TimelineData, count: number, perDelta: number, startAt: number, everyMs: number) {
  const rand = random(7);
  const open = new Map<string, TimelineHold>();
  const keys = [...new Set(history.holds.map((hold) => hold.key))];
  for (const hold of history.holds) if (hold.to === undefined) open.set(hold.key, hold);
  let id = Math.max(...history.holds.map((hold) => hold.id)) + 1;
  const deltas: TimelineDelta[] = [];
  for (let d = 0; d < count; d++) {
    const at = startAt + d * everyMs;
    const holds: TimelineHold[] = [];
    for (let i = 0; i < perDelta; i++) {
      const key = keys[Math.floor(rand() * keys.length)];
      const held = open.get(key);
      if (held) {
        holds.push({ ...held, to: at, end: pickEnd(rand) });
        open.delete(key);
      } else {
        const hold: TimelineHold = {
          id: id++,
          key,
          owner: `worker-${1 + Math.floor(rand() * 40)}#live`,
          token: token(rand),
          from: at,
          extensions: [],
          leaseMs: 30_000,
          approximate: false,
        };
        holds.push(hold);
        open.set(key, hold);
      }
    }
    deltas.push({ now: at, holds, waiters: [] });
  }
  return deltas;
}

/**
 * What the demo looks like: four workers contending for a few keys over the last two minutes;
 * worker-3 is killed while it holds lock:orders:2 and its lease runs out (expired); one key is
 * only polled (approximate), the report job extends its lease, waiters are counted on inventory.
 */
export function contentionScenario(now: number): TimelineData {
  const rand = random(42);
  const workers = ['api-1#4711', 'api-2#4712', 'worker-3#5120', 'worker-4#5121'];
  const holds: TimelineHold[] = [];
  let id = 1;
  const start = now - 110_000;
  const add = (hold: Omit<TimelineHold, 'id' | 'token' | 'extensions' | 'approximate'> & Partial<TimelineHold>) => {
    holds.push({ id: id++, token: `${hold.owner}:${token(rand)}`, extensions: [], approximate: false, ...hold });
  };
  for (const key of ['lock:orders:1', 'lock:orders:2', 'lock:orders:3', 'lock:inventory']) {
    let at = start + rand() * 3000;
    let turn = Math.floor(rand() * 4);
    while (at < now - 1500) {
      const owner = workers[turn++ % workers.length];
      const length = key === 'lock:inventory' ? 2500 + rand() * 4000 : 1500 + rand() * 6000;
      // worker-3 dies holding lock:orders:2 a minute ago: nobody gets it until the 10 s lease runs out.
      const killed = key === 'lock:orders:2' && owner.startsWith('worker-3') && at > now - 70_000 && at < now - 50_000;
      if (killed) {
        add({ key, owner, from: at, to: at + 10_000, end: 'expired', leaseMs: 10_000 });
        at += 10_000 + 40;
        continue;
      }
      if (at + length >= now) {
        add({ key, owner, from: at, leaseMs: 10_000 });
        break;
      }
      add({ key, owner, from: at, to: at + length, end: 'released', leaseMs: 10_000 });
      at += length + 20 + rand() * 300;
    }
  }
  add({
    key: 'lock:report:daily',
    owner: 'cron-1#311',
    from: now - 95_000,
    to: now - 12_000,
    end: 'released',
    leaseMs: 30_000,
    extensions: [now - 75_000, now - 55_000, now - 35_000],
  });
  for (let at = now - 100_000, turn = 0; at < now - 8000; at += 9000 + rand() * 6000, turn++) {
    add({
      key: 'lock:cache:refresh',
      owner: workers[turn % 4],
      from: at,
      to: at + 4000 + rand() * 2000,
      end: 'released',
      approximate: true,
      leaseMs: 5000,
    });
  }
  add({ key: 'lock:invoice-sync', owner: 'api-2#4712', from: now - 80_000, to: now - 62_000, end: 'forced' });
  const samples: Array<[number, number]> = [];
  for (let at = start; at < now; at += 1000) samples.push([at, Math.max(0, Math.round(1.5 + Math.sin(at / 9000) * 2))]);
  return {
    connection: 'demo (localhost:6390)',
    connectionId: 'demo',
    now,
    holds,
    waiters: [{ key: 'lock:inventory', samples }],
    sampledEveryMs: 2000,
    gaps: [],
    observation: { kind: 'reads', everyMs: 2000, since: start },
  };
}
