// A row's tooltip stays open while it is read: the tree holds the redraws of the hovered row and
// of the rows above it (a parent's redraw redraws its children) while the pointer rests, as long
// as only the countdown or a re-read TTL changed; a new holder, or the lease running out, is
// drawn at once; what was held is drawn when the hover ends, and never later than HOVER_PAUSE_MS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LockEntry } from '../extension/src/locks/classify';
import { HOVER_PAUSE_MS, HoverPause, rowIdentity } from '../extension/src/views/hoverPause';

const lock = (token: string, pttl: number, readAt: number, queued = 0): LockEntry => ({
  kind: 'token',
  key: Buffer.from('lock:{orders:42}'),
  token: Buffer.from(token),
  owner: token.split(':').slice(0, 2).join('#'),
  type: 'string',
  pttl,
  readAt,
  value: { type: 'string', head: Buffer.from(token), length: token.length },
  ...(queued && { waiters: { queued } }),
});

test('while a row is hovered its redraws and its ancestors’ are held; others are not', () => {
  const pause = new HoverPause<string>();
  pause.hover(['row', 'group', 'connection'], 0);
  assert.equal(pause.hold('row', 100), true);
  assert.equal(pause.hold('connection', 200), true);
  assert.equal(pause.hold('other row', 300), false);
  assert.deepEqual(pause.release(400), [], 'nothing is drawn while the hover lasts');
});

test('what was held is drawn once another row is hovered, or once the pause is over', () => {
  const pause = new HoverPause<string>();
  pause.hover(['a', 'connection'], 0);
  pause.hold('a', 100);
  pause.hold('connection', 150);
  pause.hover(['b', 'connection'], 1_000);
  assert.deepEqual(pause.release(1_100), ['a'], 'the row left is drawn; the shared parent waits');
  assert.deepEqual(pause.release(150 + HOVER_PAUSE_MS - 1), []);
  assert.deepEqual(pause.release(150 + HOVER_PAUSE_MS), ['connection'], 'held no longer than the pause');
  assert.equal(pause.hold('b', 1_000 + HOVER_PAUSE_MS), false, 'the pause is over');
});

test('moving from row to row never holds a redraw longer than the pause', () => {
  const pause = new HoverPause<string>();
  pause.hover(['a', 'connection'], 0);
  pause.hold('connection', 0);
  for (let at = 1_000; at < HOVER_PAUSE_MS; at += 1_000) {
    pause.hover([at % 2000 ? 'a' : 'b', 'connection'], at);
    assert.deepEqual(pause.release(at), []);
  }
  assert.deepEqual(pause.release(HOVER_PAUSE_MS), ['connection']);
});

test('a row is the same while only its countdown moves; a new holder, a waiter or the lease running out is not', () => {
  const now = 10_000;
  const shown = rowIdentity(lock('api-1:4711:aa', 9_000, now), now);
  assert.equal(rowIdentity(lock('api-1:4711:aa', 9_000, now), now + 3_000), shown, 'counting down');
  assert.equal(rowIdentity(lock('api-1:4711:aa', 9_000, now + 2_000), now + 2_000), shown, 're-read, extended');
  assert.notEqual(rowIdentity(lock('api-2:5120:bb', 9_000, now), now), shown, 'another holder');
  assert.notEqual(rowIdentity(lock('api-1:4711:aa', 9_000, now, 1), now), shown, 'someone waits');
  assert.notEqual(rowIdentity(lock('api-1:4711:aa', 9_000, now), now + 9_500), shown, 'the lease ran out');
});
