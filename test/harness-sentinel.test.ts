// The Sentinel harness itself: a forced failover moves the master to the other server, and a
// Sentinel-aware client follows it with the data intact.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Redis from 'ioredis';
import { startSentinelGroup, type SentinelGroup } from '../harness/sentinel';

// One sentinel is the default; three exercise the majority quorum and config propagation.
for (const sentinels of [1, 3]) {
  describe(`${sentinels} sentinel(s)`, () => {
    let group: SentinelGroup;
    let client: Redis;

    before(async () => {
      group = await startSentinelGroup({ sentinels });
      client = new Redis({ sentinels: group.sentinels, name: group.masterName });
      // Reconnecting after the failover, ioredis first finds its sentinel list used up and emits
      // 'error' before starting over; commands still reject if it never gets through.
      client.on('error', () => {});
    });

    after(async () => {
      client?.disconnect();
      await group?.stop();
    });

    test('failover promotes the replica; a sentinel client reads and writes on the new master', async () => {
      assert.equal(group.masterName, 'locksmith');
      assert.equal(group.sentinels.length, sentinels);
      for (const { host, port } of group.sentinels) {
        assert.equal(host, '127.0.0.1');
        assert.notEqual(port, 6379);
      }
      const [first, second] = group.servers;
      const oldPort = await group.masterPort();
      assert.equal(oldPort, first.port);

      await client.set('lock:failover', 'owner-1');
      // Acknowledged by the replica before it is promoted, or the failover could lose it.
      assert.equal(await client.wait(1, 2000), 1);

      const newPort = await group.failover();
      assert.notEqual(newPort, oldPort);
      assert.equal(newPort, second.port);
      assert.equal(await group.masterPort(), newPort);

      assert.equal(await client.get('lock:failover'), 'owner-1');
      await client.set('lock:after', 'owner-2');
      const direct = second.client();
      try {
        assert.equal(await direct.get('lock:after'), 'owner-2');
      } finally {
        direct.disconnect();
      }
    });
  });
}
