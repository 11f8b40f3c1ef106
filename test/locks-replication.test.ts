// The replication picture in the connection's tooltip, on Redis 7.0 and Valkey 9 with a real
// replica: read with each of the view's reads (one INFO replication per node per read, nothing on
// a timer of its own), the replicas and how far behind they are, min-replicas-to-write when set,
// a replica seen from its side, and what the tooltip says of each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { DEFAULT_LOCK_PATTERNS } from '../extension/src/locks/discovery';
import type { MonitorSource } from '../extension/src/locks/keyspaceEvents';
import { LockMonitor } from '../extension/src/locks/monitor';
import { describeReplication, parseReplication } from '../extension/src/locks/replication';
import { startProxy, type TcpProxy } from '../harness/proxy';
import { SERVER_KINDS, startRedis, type RedisServer } from '../harness/redis';
import { commandCalls, waitFor } from './helpers';

const source = (redis: Redis, name: string): MonitorSource => ({
  db: 0,
  masters: () => [redis],
  nodeName: () => name,
  onEveryNode: (action) => Promise.all([action(redis)]),
});

const monitorOf = (redis: Redis, name = 'server') =>
  new LockMonitor(source(redis, name), () => ({ patterns: DEFAULT_LOCK_PATTERNS, limit: 500, intervalMs: 1000 }));

for (const kind of SERVER_KINDS) {
  describe(kind, () => {
    let master: RedisServer;
    let replica: RedisServer;
    let alone: RedisServer;
    let link: TcpProxy;
    let redis: Redis;
    before(async () => {
      const args = ['--repl-diskless-sync-delay', '0'];
      master = await startRedis({ server: kind, args: [...args, '--min-replicas-to-write', '1'] });
      link = await startProxy(master.port);
      replica = await startRedis({ server: kind, args: [...args, '--replicaof', '127.0.0.1', String(link.port)] });
      alone = await startRedis({ server: kind });
      redis = master.client();
      // min-replicas-to-write refuses writes until the replica counts as good.
      await waitFor('the replica to count as good', async () =>
        /min_slaves_good_slaves:1/.test(await redis.info('replication')),
      );
      await redis.set('lock:a', 'api-1:1:aaaaaaaa', 'PX', 60_000);
      assert.equal(await redis.wait(1, 10_000), 1, 'the replica is in sync');
    });
    after(async () => {
      redis?.disconnect();
      await replica?.stop();
      await master?.stop();
      await alone?.stop();
      await link?.close();
    });

    test("read with the view's reads: one INFO replication per node per read, the replica and min-replicas-to-write", async () => {
      const monitor = monitorOf(redis);
      try {
        assert.deepEqual(describeReplication(monitor.snapshot().nodes, Date.now()), []);
        const infos = await commandCalls(redis, 'info');
        await monitor.refresh();
        await monitor.tick();
        // Two reads, two INFO replication; commandCalls' own INFO is the third.
        assert.equal(await commandCalls(redis, 'info'), infos + 3);
        const [node] = monitor.snapshot().nodes;
        const picture = node.replication!;
        assert.equal(picture.role, 'master');
        assert.equal(picture.goodReplicas, 1);
        assert.deepEqual(
          picture.replicas.map(({ address, state }) => [address, state]),
          [[`127.0.0.1:${replica.port}`, 'online']],
        );
        const [line, age] = describeReplication(monitor.snapshot().nodes, picture.readAt + 3000);
        assert.match(
          line,
          new RegExp(
            `^Replication: 1 replica: 127\\.0\\.0\\.1:${replica.port} online, \\d+ (B|KiB) behind, acknowledged \\d+ s ago; ` +
              'min-replicas-to-write is set: 1 good, writes \\(acquires too\\) are refused with fewer than the setting\\.$',
          ),
        );
        assert.match(
          age,
          /^Replication read 3\.0 s ago\. A lock is lost in a failover when the promoted replica had not received it/,
        );
      } finally {
        monitor.dispose();
      }
    });

    test('a replica that lags shows the bytes it has not acknowledged', async () => {
      link.setLatency(1000);
      try {
        await redis.set('lock:big', 'x'.repeat(100_000), 'PX', 60_000);
        const picture = parseReplication(await redis.info('replication'), Date.now())!;
        assert.ok(picture.replicas[0].behindBytes >= 100_000, `${picture.replicas[0].behindBytes} bytes behind`);
        assert.match(
          describeReplication([{ name: 'm', replication: picture }], Date.now())[0],
          / (\d+\.\d KiB) behind/,
        );
      } finally {
        link.setLatency(0);
      }
    });

    test('a master without replicas, a replica, and nodes not read yet say so', async () => {
      const lonely = alone.client();
      const replicaClient = replica.client();
      try {
        const none = parseReplication(await lonely.info('replication'), Date.now())!;
        assert.deepEqual([none.role, none.replicas, none.goodReplicas], ['master', [], undefined]);
        const follower = parseReplication(await replicaClient.info('replication'), Date.now())!;
        assert.deepEqual(follower.master, { address: `127.0.0.1:${link.port}`, linkUp: true });
        const now = Date.now();
        assert.equal(
          describeReplication([{ name: 'a', replication: none }], now)[0],
          'Replication: no replica: nothing to fail over to; locks live on this master alone.',
        );
        // A Cluster: each master on its own line, by name; one not read yet is counted.
        const lines = describeReplication(
          [
            { name: '10.0.0.1:7000', replication: none },
            { name: '10.0.0.2:7000', replication: follower },
            { name: '10.0.0.3:7000' },
          ],
          now,
        );
        assert.deepEqual(lines.slice(0, 2), [
          '10.0.0.1:7000: no replica: nothing to fail over to; locks live on this master alone.',
          `10.0.0.2:7000: a replica of 127.0.0.1:${link.port} (link up): locks cannot be taken here.`,
        ]);
        assert.match(lines[2], /^Replication read 0\.0 s ago; 1 node not read yet\./);
        assert.deepEqual(describeReplication([{ name: 'x' }], now), ['Replication: not read yet.']);
        assert.equal(parseReplication(await lonely.info('server'), now), undefined, 'not INFO replication');
      } finally {
        lonely.disconnect();
        replicaClient.disconnect();
      }
    });
  });
}
