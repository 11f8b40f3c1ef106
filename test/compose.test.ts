// How a helper's parts compose (snippets/compose.ts) where a part names points of its own: redis-py's
// asyncio part holds the async halves of the other parts (AsyncLease's methods, the multi-key lock's
// async acquire, the wake-ups' async waiters), which go in only when the helper carries both.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { composeHelper } from '../snippets/compose';
import { renderHelper } from '../snippets/helper';
import { findClient, loadTemplate } from '../snippets/template';

const pack = loadPack();
const python = (kinds: string) => renderHelper('redis-py', pack, kinds ? { kinds } : {}).text;
const count = (text: string, pattern: RegExp) => [...text.matchAll(new RegExp(pattern, 'gm'))].length;

describe("a part's own points", () => {
  test("another part's async half goes in only with the asyncio part, inside its class", () => {
    const sync = python('fenced-writes');
    assert.equal(count(sync, /^ {4}def set_if_held\(/), 1);
    assert.equal(count(sync, /^ {4}async def set_if_held\(/), 0);
    assert.doesNotMatch(sync, /AsyncLease|^import asyncio$/m);
    const both = python('asyncio,fenced-writes');
    assert.equal(count(both, /^ {4}async def set_if_held\(/), 1);
    const asyncLease = both.slice(both.indexOf('class AsyncLease('));
    assert.ok(asyncLease.indexOf('async def set_if_held(') < asyncLease.indexOf('\nasync def _send_async('));
  });

  test('three deep: the wake-ups of the multi-key lock in asyncio, only when the helper carries all three', () => {
    assert.match(python('wakeups,asyncio,multi'), /^_AsyncMultiWaiter = _AsyncMultiWoken$/m);
    assert.match(python('wakeups,multi'), /^_MultiWaiter = _MultiWoken$/m);
    assert.doesNotMatch(python('wakeups,multi'), /_AsyncMultiWoken|AsyncMultiLease/);
    assert.doesNotMatch(python('asyncio,multi'), /_MultiWoken/);
    for (const kinds of ['', 'wakeups,asyncio,multi', 'asyncio,multi', 'wakeups'])
      assert.doesNotMatch(python(kinds), /«/);
  });

  test('a section for a point no core or part has is refused, naming it', () => {
    const client = findClient('redis-py');
    const template = loadTemplate(client, 'helper').replace(/^«kinds:lock»\n/m, '');
    assert.throws(() => composeHelper(client, template, 'py', ['asyncio']), {
      message: 'redis-py/helper: no «kinds:lock» for the asyncio section',
    });
  });
});
