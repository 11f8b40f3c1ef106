// Locks across failover, the full count (test/failover.test.ts is the short form). Per topology
// (Sentinel: 1 master, 2 replicas, 3 sentinels; Cluster: 3 masters with a replica each) and
// server (Redis 7.0, Valkey 9): client A takes a lock with a fencing token, the lock's master is
// killed (SIGKILL, its replication link cut with it) at a moment drawn uniformly within
// --kill-within-ms after A's acquire returned, a replica is promoted, and client B (plain acquire)
// tries the lock on the new master. Trials without and with waitForReplicas on A alternate on the
// same servers, so drift on a shared machine hits both alike. Counts double holders (B took the
// lock while A's lease ran), how long they overlapped, and fencing tokens not higher than A's.
// Every replication link carries --link-ms each way (a proxy): a lock is lost when the kill lands
// before the replicas have it, so without the option about link-ms / kill-within-ms of the trials
// lose it. A topology that does not come back whole after a trial (Sentinel slow to turn back a
// replica an aborted failover attempt promoted, on a loaded machine) is started afresh; its trial
// counts, and the restarts column says how often. Not a test; stops by itself after --failovers
// per cell (at most 5 restarts per cell), and leaves no process behind.
//   npm run bench:failover -- [--failovers 50] [--topologies sentinel,cluster] [--servers redis,valkey]
//     [--link-ms 5] [--kill-within-ms 10] [--ttl-ms 10000] [--options off,on]
import { parseArgs } from 'node:util';
import type { WaitForReplicas } from '../pack/runtime';
import {
  FAILOVER_SETTINGS,
  startFaultRun,
  UnhealedError,
  type FaultRun,
  type TopologyKind,
  type Trial,
} from '../harness/failover';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';

const WAIT_FOR_REPLICAS: WaitForReplicas = { replicas: 1, timeoutMs: 100 };
/** Topologies started afresh per cell at most, after one did not heal. */
const MAX_RESTARTS = 5;

type OptionSetting = 'off' | 'on';

interface Cell {
  topology: TopologyKind;
  server: ServerKind;
  option: OptionSetting;
  trials: Trial[];
  /** Trials after which the topology did not heal (counted in `trials`: the failover itself was measured). */
  restarts: number;
}

const median = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[values.length >> 1] : NaN);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      failovers: { type: 'string', default: '50' },
      topologies: { type: 'string', default: 'sentinel,cluster' },
      servers: { type: 'string', default: SERVER_KINDS.join(',') },
      'link-ms': { type: 'string', default: '5' },
      'kill-within-ms': { type: 'string', default: '10' },
      'ttl-ms': { type: 'string', default: '10000' },
      options: { type: 'string', default: 'off,on' },
    },
  });
  const failovers = Number(values.failovers);
  const linkMs = Number(values['link-ms']);
  const killWithinMs = Number(values['kill-within-ms']);
  const ttlMs = Number(values['ttl-ms']);
  const settings = values.options.split(',') as OptionSetting[];
  const started = performance.now();
  console.log(
    `${failovers} failovers per cell; replication links +${linkMs} ms each way; kill within ${killWithinMs} ms of A's acquire; lease ${ttlMs} ms; ` +
      `waitForReplicas ${JSON.stringify(WAIT_FOR_REPLICAS)}; Node ${process.version}`,
  );
  console.log(
    `failover settings: Sentinel down-after-milliseconds ${FAILOVER_SETTINGS.sentinel.downAfterMs}, failover-timeout ${FAILOVER_SETTINGS.sentinel.failoverTimeoutMs}, ` +
      `SENTINEL DEBUG info-period 500 publish-period 250 ask-period 100; Cluster cluster-node-timeout ${FAILOVER_SETTINGS.cluster.nodeTimeoutMs}`,
  );
  const cells: Cell[] = [];
  for (const topology of values.topologies.split(',') as TopologyKind[]) {
    for (const server of values.servers.split(',') as ServerKind[]) {
      const mine = settings.map((option): Cell => ({ topology, server, option, trials: [], restarts: 0 }));
      cells.push(...mine);
      let run: FaultRun = await startFaultRun(topology, server, linkMs);
      try {
        for (let i = 0; i < failovers; i++) {
          for (const cell of mine) {
            const waitForReplicas = cell.option === 'on' ? WAIT_FOR_REPLICAS : undefined;
            try {
              cell.trials.push(await run.trial({ killWithinMs, ttlMs, waitForReplicas }));
            } catch (error) {
              if (!(error instanceof UnhealedError) || ++cell.restarts > MAX_RESTARTS) throw error;
              cell.trials.push(error.trial);
              process.stderr.write(`\n${topology} ${server}: ${error.message}; starting it afresh\n`);
              await run.stop();
              run = await startFaultRun(topology, server, linkMs);
            }
          }
          process.stderr.write(`\r${topology} ${server}: ${i + 1}/${failovers}`);
        }
        process.stderr.write('\n');
      } finally {
        await run.stop();
      }
    }
  }
  printTable(cells);
  console.log(`\n${((performance.now() - started) / 60_000).toFixed(1)} min`);
}

/** Why A was refused, counted per reason ('timeout: 2'), or '-': a gap in 'A held' says its cause. */
function refusals(trials: Trial[]): string {
  const counts = new Map<string, number>();
  for (const { a } of trials) if ('refused' in a) counts.set(a.refused, (counts.get(a.refused) ?? 0) + 1);
  return [...counts].map(([reason, count]) => `${reason}: ${count}`).join(', ') || '-';
}

function printTable(cells: Cell[]): void {
  const header = [
    'topology',
    'server',
    'waitForReplicas',
    'failovers',
    'A held',
    'A refused (why)',
    'double holders',
    'overlap max ms',
    'overlap median ms',
    'fence not higher',
    'failover median ms',
    'restarts',
  ];
  const rows = cells.map(({ topology, server, option, trials, restarts }) => {
    const overlaps = trials.flatMap((trial) =>
      trial.overlapMs !== undefined && trial.overlapMs > 0 ? [trial.overlapMs] : [],
    );
    return [
      topology,
      server,
      option,
      String(trials.length),
      String(trials.filter((trial) => 'fence' in trial.a).length),
      refusals(trials),
      String(overlaps.length),
      overlaps.length ? Math.max(...overlaps).toFixed(0) : '-',
      overlaps.length ? median(overlaps).toFixed(0) : '-',
      String(trials.filter((trial) => trial.fenceRegression).length),
      median(trials.map((trial) => trial.failoverMs)).toFixed(0),
      String(restarts),
    ];
  });
  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);

  // The ratio against the baseline measured in the same run: double holders with the option per double holder without.
  for (const off of cells.filter((cell) => cell.option === 'off')) {
    const on = cells.find(
      (cell) => cell.option === 'on' && cell.topology === off.topology && cell.server === off.server,
    );
    if (!on) continue;
    const count = (cell: Cell) => cell.trials.filter((trial) => (trial.overlapMs ?? 0) > 0).length;
    const ratio = count(off) ? (count(on) / count(off)).toFixed(2) : 'n/a (none without)';
    console.log(
      `${off.topology} ${off.server}: double holders with/without waitForReplicas = ${count(on)}/${count(off)} = ${ratio}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
