// Locks across failover, the short form of bench/failover.ts: real Sentinels (1 master, 2
// replicas, 3 sentinels) and a real Cluster (3 masters, a replica each) on loopback. Client A
// takes a lock, the lock's master is killed (SIGKILL, its replication link cut), a replica is
// promoted, and client B tries the same lock on the new master.
//   - A replica that lagged behind the kill: without waitForReplicas B takes the lock while A's
//     lease runs (a double holder) with A's own fencing token; with it, A was never told it held.
//   - With waitForReplicas and a link that keeps up, the promoted replica has A's lock: B is busy.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFaultRun, type FaultRun, type TopologyKind, type Trial } from '../harness/failover';

const TTL = 30_000;
/** Each way on the replication links: the acknowledgement is one round trip of it. */
const LINK_MS = 20;
const WAIT_FOR_REPLICAS = { timeoutMs: 500 };

for (const topology of ['sentinel', 'cluster'] as const) {
  describe(topology, () => failovers(topology));
}

function failovers(topology: TopologyKind): void {
  let run: FaultRun;
  before(async () => {
    run = await startFaultRun(topology, 'redis', LINK_MS);
  });
  after(async () => {
    await run?.stop();
  });

  test('a lagging replica promoted: without the option, two holders and the same fencing token twice', async (t) => {
    const trial = await run.trial({ killWithinMs: 0, ttlMs: TTL, holdReplication: true });
    t.diagnostic(summary(trial));
    assert.ok('fence' in trial.a, 'A was told it holds the lock');
    assert.notEqual(trial.b, 'busy', 'the new master had no trace of A');
    assert.ok(trial.overlapMs !== undefined && trial.overlapMs > 0, 'B took it while A still held it');
    assert.equal(trial.fenceRegression, true, 'B got a fencing token no higher than A');
  });

  test('a lagging replica promoted: with the option, A is refused, so the lock has one holder', async (t) => {
    const trial = await run.trial({
      killWithinMs: 0,
      ttlMs: TTL,
      holdReplication: true,
      waitForReplicas: WAIT_FOR_REPLICAS,
    });
    t.diagnostic(summary(trial));
    assert.deepEqual(trial.a, { refused: 'timeout' });
    assert.equal(trial.overlapMs, undefined);
    assert.equal(trial.fenceRegression, false);
  });

  test('with the option and replicas that keep up, the promoted replica has the lock and its fencing counter', async (t) => {
    const trial = await run.trial({ killWithinMs: 0, ttlMs: TTL, waitForReplicas: WAIT_FOR_REPLICAS });
    t.diagnostic(summary(trial));
    assert.ok('fence' in trial.a, 'A holds it');
    assert.equal(trial.b, 'busy', "the new master has A's lock");
    assert.equal(trial.fenceAfter, trial.a.fence, "and A's fencing token: the next holder's is higher");
    assert.equal(trial.fenceRegression, false);
  });
}

function summary(trial: Trial): string {
  const a = 'fence' in trial.a ? `A held (fence ${trial.a.fence})` : `A refused (${trial.a.refused})`;
  const b = trial.b === 'busy' ? 'B busy' : `B took it (fence ${trial.b.fence})`;
  const overlap = trial.overlapMs === undefined ? '' : `, overlap ${trial.overlapMs.toFixed(0)} ms`;
  return `${a}; ${b} ${trial.failoverMs.toFixed(0)} ms after the kill${overlap}`;
}
