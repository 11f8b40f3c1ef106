// The layout module: names derived from a lock key, member parsing, and telling the kinds apart.
// Slots are checked against real servers in test/cluster.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  handoffChannel,
  hashTag,
  keySlot,
  parseMember,
  sortedSetKind,
  ticketsKey,
  waitersKey,
  wakeChannel,
} from '../pack/layout';

describe('names derived from the lock key', () => {
  test('the wake channel is the key itself, string or bytes', () => {
    assert.equal(wakeChannel('lock:order:42'), 'lock:order:42');
    const bytes = Buffer.from([0x6c, 0xff, 0x00]);
    assert.equal(wakeChannel(bytes), bytes);
  });

  test('the waiter queue keeps a hash tag, or makes the whole name the tag', () => {
    assert.equal(waitersKey('lock:{order:42}'), 'lock:{order:42}:waiters');
    assert.equal(waitersKey('lock:order:42'), '{lock:order:42}:waiters');
    assert.equal(waitersKey('a{b'), '{a{b}:waiters');
    assert.equal(waitersKey('lock}x'), undefined);
    assert.equal(waitersKey('{}x'), undefined);
    assert.deepEqual(
      waitersKey(Buffer.from([0xff, 0x00])),
      Buffer.from([0x7b, 0xff, 0x00, 0x7d, ...Buffer.from(':waiters')]),
    );
  });

  test("a client's hand-over channel follows the tickets key, in the lock's slot", () => {
    for (const lock of ['lock:order:42', 'lock:{order:42}']) {
      const channel = handoffChannel(ticketsKey(lock)!, '5f0c1a');
      assert.equal(channel.toString(), `${ticketsKey(lock)}:5f0c1a`);
      assert.equal(keySlot(channel), keySlot(lock), lock);
    }
    const bytes = Buffer.from([0xff, 0x00]);
    assert.deepEqual(handoffChannel(ticketsKey(bytes)!, 'c'), Buffer.concat([ticketsKey(bytes)!, Buffer.from(':c')]));
  });

  test('hash tags and slots as Redis Cluster computes them', () => {
    assert.equal(hashTag('lock:{a}')?.toString(), 'a');
    assert.equal(hashTag('{}a'), undefined);
    assert.equal(hashTag('{a}{b}')?.toString(), 'a');
    // Published values: CLUSTER KEYSLOT foo = 12182, 123456789 = 12739.
    assert.equal(keySlot('foo'), 12182);
    assert.equal(keySlot('123456789'), 12739);
    assert.equal(keySlot('x{foo}y'), 12182);
  });
});

describe('sorted-set members', () => {
  test('role and token, the token keeping its colons', () => {
    assert.deepEqual(parseMember('read:api-1:4711:ab'), { role: 'read', token: 'api-1:4711:ab' });
    assert.deepEqual(parseMember('limit:3'), { role: 'limit', token: '3' });
    assert.equal(parseMember('other:x'), undefined);
    assert.equal(parseMember('read'), undefined);
  });

  test('read-write locks and semaphores told apart, anything else not claimed', () => {
    assert.equal(sortedSetKind(['read:a', 'read:b', 'wait:w']), 'rw');
    assert.equal(sortedSetKind(['write:w']), 'rw');
    assert.equal(sortedSetKind(['hold:a', 'limit:2']), 'semaphore');
    assert.equal(sortedSetKind(['hold:a']), undefined, 'a semaphore always keeps its limit');
    assert.equal(sortedSetKind(['hold:a', 'read:b', 'limit:2']), undefined);
    assert.equal(sortedSetKind(['leaderboard-entry']), undefined);
    assert.equal(sortedSetKind([]), undefined);
  });
});
