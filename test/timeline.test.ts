// The Lock Timeline's plain parts, without a browser or VS Code: the webview page and its CSP,
// the messages from the webview, the extension side's copy of the picture and its merged
// updates, and the renderer's store, time window, layout and hit testing, text and colours.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { readPackageJson } from './packageJson';
import { contentSecurityPolicy, newNonce, timelineHtml } from '../extension/src/timeline/html';
import {
  parseFromPanel,
  savedConnectionId,
  TIMELINE_VIEW_TYPE,
  type TimelineData,
  type TimelineHold,
} from '../extension/src/timeline/protocol';
import { PendingDelta, TimelineState } from '../extension/src/timeline/snapshot';
import { clockTime, duration, holdDetails, timeTicks } from '../extension/src/timeline/webview/format';
import {
  AXIS_HEIGHT,
  hitTest,
  layoutFor,
  plotWidth,
  ROW_HEIGHT,
  visibleRows,
} from '../extension/src/timeline/webview/layout';
import { OwnerPalette } from '../extension/src/timeline/webview/palette';
import { TimelineStore } from '../extension/src/timeline/webview/store';
import { MAX_SPAN_MS, MIN_SPAN_MS, NOW_MARGIN, Viewport } from '../extension/src/timeline/webview/viewport';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
/** What every picture in these tests carries besides holds and waiters: the connection and how it is observed. */
const OBSERVED = {
  connectionId: 'id',
  gaps: [],
  observation: { kind: 'events', since: NOW - 600_000 },
} satisfies Partial<TimelineData>;

function hold(id: number, key: string, from: number, to?: number, extra: Partial<TimelineHold> = {}): TimelineHold {
  return {
    id,
    key,
    owner: `owner-${id % 3}`,
    token: `token-${id}`,
    from,
    ...(to === undefined ? {} : { to, end: 'released' as const }),
    extensions: [],
    approximate: false,
    ...extra,
  };
}

describe('the webview page', () => {
  const page = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/extension/out/timeline/timeline.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/extension/out/timeline/timeline.css',
    nonce: newNonce(),
  };
  const html = timelineHtml(page);

  test('a Content Security Policy that allows nothing but the nonced script and the extension stylesheet', () => {
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
    assert.ok(meta, 'the page has a CSP meta tag');
    const csp = meta[1].replace(/&#39;|&apos;/g, "'");
    assert.equal(csp, contentSecurityPolicy(page.cspSource, page.nonce));
    const directives = new Map(csp.split('; ').map((part) => [part.split(' ')[0], part.split(' ').slice(1)]));
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.deepEqual(directives.get('script-src'), [`'nonce-${page.nonce}'`]);
    assert.deepEqual(directives.get('style-src'), [page.cspSource]);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:\/\/(?!file\+)/);
  });

  test('one script, from the extension, with the nonce; no inline script, style or handler', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    const [, attributes, body] = scripts[0];
    assert.match(attributes, new RegExp(`nonce="${page.nonce.replace(/[+/]/g, '\\$&')}"`));
    assert.match(attributes, new RegExp(`src="${page.scriptUri.replace(/[.+]/g, '\\$&')}"`));
    assert.equal(body.trim(), '', 'no inline code');
    assert.doesNotMatch(html, /<style|style="|\son[a-z]+=/i);
    assert.match(html, new RegExp(`<link rel="stylesheet" href="${page.styleUri.replace(/[.+]/g, '\\$&')}">`));
  });

  test('a new nonce each time, 128 random bits', () => {
    const nonces = new Set(Array.from({ length: 50 }, newNonce));
    assert.equal(nonces.size, 50);
    for (const nonce of nonces) assert.equal(Buffer.from(nonce, 'base64').length, 16);
  });

  test('URIs are escaped inside attributes', () => {
    const odd = timelineHtml({ ...page, scriptUri: 'https://x/a"b<c>.js' });
    assert.match(odd, /src="https:\/\/x\/a&quot;b&lt;c&gt;\.js"/);
  });
});

describe('messages from the webview', () => {
  test('ready and select are taken; anything else is not', () => {
    assert.deepEqual(parseFromPanel({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseFromPanel({ type: 'select', key: 'lock:a', extra: 1 }), { type: 'select', key: 'lock:a' });
    for (const bad of [
      null,
      'select',
      7,
      {},
      { type: 'select' },
      { type: 'select', key: '' },
      { type: 'select', key: 3 },
    ]) {
      assert.equal(parseFromPanel(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(parseFromPanel({ type: 'eval', key: 'x' }), undefined);
  });

  test('a panel restored after a window reload names its connection in the state its renderer saved', () => {
    assert.equal(savedConnectionId({ viewport: {}, connectionId: 'c-1' }), 'c-1');
    for (const bad of [undefined, null, 'c-1', {}, { connectionId: '' }, { connectionId: 7 }]) {
      assert.equal(savedConnectionId(bad), undefined, JSON.stringify(bad));
    }
  });

  test("package.json activates the extension for the panel's view type, so VS Code can hand it back after a reload", () => {
    assert.ok(readPackageJson().activationEvents.includes(`onWebviewPanel:${TIMELINE_VIEW_TYPE}`));
  });
});

describe('the panel side: the whole picture and the pending update', () => {
  test('a reset, then deltas: holds replaced by id, removed, waiter samples appended in order', () => {
    const state = new TimelineState();
    state.reset({
      connection: 'c',
      ...OBSERVED,
      now: NOW,
      holds: [hold(1, 'lock:a', NOW - 5000), hold(2, 'lock:b', NOW - 4000, NOW - 3000)],
      waiters: [{ key: 'lock:a', samples: [[NOW - 5000, 1]] }],
      sampledEveryMs: 2000,
    });
    state.apply({
      now: NOW + 1000,
      holds: [hold(1, 'lock:a', NOW - 5000, NOW + 500), hold(3, 'lock:a', NOW + 600)],
      waiters: [
        {
          key: 'lock:a',
          samples: [
            [NOW - 6000, 9],
            [NOW + 1000, 2],
          ],
        },
      ],
      removed: [2],
    });
    const data = state.data();
    assert.equal(data.now, NOW + 1000);
    assert.equal(data.sampledEveryMs, 2000);
    assert.deepEqual(
      data.holds.map((h) => [h.id, h.to]),
      [
        [1, NOW + 500],
        [3, undefined],
      ],
    );
    assert.deepEqual(data.waiters, [
      {
        key: 'lock:a',
        samples: [
          [NOW - 5000, 1],
          [NOW + 1000, 2],
        ],
      },
    ]);
    state.reset({ connection: 'd', now: NOW, holds: [], waiters: [], ...OBSERVED });
    assert.deepEqual(state.data(), { connection: 'd', now: NOW, holds: [], waiters: [], ...OBSERVED });
  });

  test('pending deltas merge into one: the last version of a hold, removals, new samples; take() empties it', () => {
    const pending = new PendingDelta();
    assert.equal(pending.take(), undefined);
    pending.add({ now: NOW, holds: [hold(1, 'lock:a', NOW), hold(2, 'lock:a', NOW)], waiters: [] });
    pending.add({ now: NOW + 10, holds: [hold(1, 'lock:a', NOW, NOW + 10)], waiters: [], removed: [2, 7] });
    pending.add({
      now: NOW + 20,
      holds: [hold(7, 'lock:b', NOW + 20)],
      waiters: [{ key: 'lock:a', samples: [[NOW, 3]] }],
    });
    const delta = pending.take();
    assert.ok(delta);
    assert.equal(delta.now, NOW + 20);
    assert.deepEqual(
      delta.holds.map((h) => [h.id, h.to]),
      [
        [1, NOW + 10],
        [7, undefined],
      ],
    );
    assert.deepEqual(delta.removed, [2]);
    assert.deepEqual(delta.waiters, [{ key: 'lock:a', samples: [[NOW, 3]] }]);
    assert.equal(pending.isEmpty, true);
    assert.equal(pending.take(), undefined);
  });
});

describe('the store', () => {
  test('one row per key in natural order; the filter keeps keys containing the text, any case', () => {
    const store = new TimelineStore();
    store.reset({
      connection: 'c',
      ...OBSERVED,
      now: NOW,
      holds: ['lock:10', 'lock:2', 'Lock:B', 'lock:a', 'lock:2'].map((key, i) => hold(i + 1, key, NOW - 1000 * i)),
      waiters: [{ key: 'lock:waiting-only', samples: [[NOW, 2]] }],
    });
    assert.deepEqual(
      store.rows().map((row) => row.key),
      ['lock:2', 'lock:10', 'lock:a', 'Lock:B', 'lock:waiting-only'],
    );
    assert.equal(store.holdCount, 5);
    assert.deepEqual(
      store.rows()[0].holds.map((h) => h.id),
      [5, 2],
      'sorted by start',
    );
    store.setFilter('  LOCK:b ');
    assert.deepEqual(
      store.rows().map((row) => row.key),
      ['Lock:B'],
    );
    store.setFilter('');
    assert.equal(store.rows().length, 5);
    assert.equal(store.earliest, NOW - 4000);
  });

  test('updates: a new key sorts in, a changed hold moves, a removed last hold takes its row away', () => {
    const store = new TimelineStore();
    store.reset({
      connection: 'c',
      ...OBSERVED,
      now: NOW,
      holds: [hold(1, 'lock:1', NOW - 100), hold(2, 'lock:3', NOW)],
      waiters: [],
    });
    store.apply({ now: NOW, holds: [hold(3, 'lock:2', NOW), hold(1, 'lock:1', NOW - 50, NOW)], waiters: [] });
    assert.deepEqual(
      store.rows().map((row) => row.key),
      ['lock:1', 'lock:2', 'lock:3'],
    );
    const [first] = store.rows();
    assert.deepEqual(
      first.holds.map((h) => [h.from, h.to]),
      [[NOW - 50, NOW]],
    );
    assert.equal(first.open.size, 0, 'the replaced open hold is no longer open');
    store.apply({ now: NOW, holds: [], waiters: [], removed: [3, 99] });
    assert.deepEqual(
      store.rows().map((row) => row.key),
      ['lock:1', 'lock:3'],
    );
    assert.equal(store.holdCount, 2);
  });

  test('waiters: the count at a time is the last sample before it', () => {
    const store = new TimelineStore();
    store.reset({
      connection: 'c',
      ...OBSERVED,
      now: NOW,
      holds: [],
      waiters: [
        {
          key: 'lock:a',
          samples: [
            [NOW - 2000, 1],
            [NOW - 1000, 4],
            [NOW, 0],
          ],
        },
      ],
    });
    const [row] = store.rows();
    assert.equal(store.waitersAt(row, NOW - 3000), undefined);
    assert.equal(store.waitersAt(row, NOW - 2000), 1);
    assert.equal(store.waitersAt(row, NOW - 500), 4);
    assert.equal(store.waitersAt(row, NOW + 5000), 0);
  });

  test('the holds in a window are exactly those that overlap it (against a brute-force filter)', () => {
    const holdArbitrary = fc.record({
      from: fc.integer({ min: 0, max: 100_000 }),
      length: fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }),
      key: fc.constantFrom('lock:a', 'lock:b'),
    });
    fc.assert(
      fc.property(
        fc.array(holdArbitrary, { maxLength: 60 }),
        fc.array(holdArbitrary, { maxLength: 10 }),
        fc.integer({ min: -10_000, max: 140_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        (initial, later, start, span) => {
          const now = 140_000;
          const make = (spec: (typeof initial)[number], id: number) =>
            hold(id, spec.key, spec.from, spec.length === undefined ? undefined : spec.from + spec.length);
          const holds = initial.map((spec, i) => make(spec, i + 1));
          const store = new TimelineStore();
          store.reset({ connection: 'c', now, holds, waiters: [], ...OBSERVED });
          // Later: some holds change (ids reused), some are new.
          const changed = later.map((spec, i) => make(spec, i % 2 ? i + 1 : 1000 + i));
          store.apply({ now, holds: changed, waiters: [] });
          const current = new Map([...holds, ...changed].map((h) => [h.id, h]));
          for (const row of store.rows()) {
            const seen: number[] = [];
            store.forEachHoldIn(row, start, start + span, now, (h) => seen.push(h.id));
            const expected = [...current.values()]
              .filter((h) => h.key === row.key && h.from <= start + span && (h.to ?? now) >= start)
              .map((h) => h.id);
            assert.deepEqual(seen.sort(), expected.sort());
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the time window', () => {
  test('follows now with a margin on the right; panning back stops following, panning forward to now resumes', () => {
    const viewport = new Viewport(NOW, 60_000);
    assert.equal(viewport.end, NOW + 60_000 * NOW_MARGIN);
    assert.equal(viewport.advance(NOW + 1000), true);
    assert.equal(viewport.end, NOW + 1000 + 60_000 * NOW_MARGIN);
    viewport.pan(-10_000, NOW + 1000, NOW - 600_000);
    assert.equal(viewport.following, false);
    assert.equal(viewport.advance(NOW + 5000), false, 'a paused window stays');
    viewport.pan(+60_000, NOW + 5000, NOW - 600_000);
    assert.equal(viewport.following, true);
    assert.equal(viewport.end, NOW + 5000 + 60_000 * NOW_MARGIN, 'never past now');
    assert.equal(viewport.span, 60_000);
  });

  test('panning back stops before the history does; the span never changes on a pan', () => {
    const viewport = new Viewport(NOW, 60_000);
    viewport.pan(-10 * 60 * 60_000, NOW, NOW - 120_000);
    assert.ok(viewport.end > NOW - 120_000, 'some of the history stays in view');
    assert.equal(viewport.span, 60_000);
  });

  test('zoom keeps the time under the pointer where it is; while following, it keeps following', () => {
    const viewport = new Viewport(NOW, 60_000);
    viewport.pan(-30_000, NOW, NOW - 600_000);
    const anchor = viewport.start + viewport.span * 0.25;
    const share = (anchor - viewport.start) / viewport.span;
    viewport.zoom(0.5, anchor, NOW);
    assert.equal(viewport.span, 30_000);
    assert.ok(Math.abs((anchor - viewport.start) / viewport.span - share) < 1e-9);
    const live = new Viewport(NOW, 60_000);
    live.zoom(2, NOW - 50_000, NOW);
    assert.equal(live.following, true);
    assert.equal(live.end, NOW + 120_000 * NOW_MARGIN);
    live.zoom(1e-9, NOW, NOW);
    assert.equal(live.span, MIN_SPAN_MS);
    live.zoom(1e12, NOW, NOW);
    assert.equal(live.span, MAX_SPAN_MS);
  });

  test('x and time are inverse', () => {
    const viewport = new Viewport(NOW, 60_000);
    assert.equal(viewport.time(viewport.x(NOW - 12_345, 800), 800), NOW - 12_345);
  });
});

describe('layout and hit testing', () => {
  const store = new TimelineStore();
  const base = NOW - 60_000;
  store.reset({
    connection: 'c',
    ...OBSERVED,
    now: NOW,
    holds: [
      hold(1, 'lock:a', base, base + 10_000),
      hold(2, 'lock:a', base + 10_000 + 10, base + 20_000),
      hold(3, 'lock:b', base + 30_000),
    ],
    waiters: [{ key: 'lock:b', samples: [[base, 2]] }],
  });
  const viewport = new Viewport(NOW, 60_000);
  viewport.pan(-NOW_MARGIN * 60_000, NOW, base);
  const layout = layoutFor(800, 400, 0, 60);
  const xOf = (time: number) => layout.labelWidth + viewport.x(time, plotWidth(layout));
  const yOf = (row: number) => AXIS_HEIGHT + row * ROW_HEIGHT + ROW_HEIGHT / 2;

  test('only the rows in view are visible', () => {
    assert.deepEqual(visibleRows(layoutFor(800, AXIS_HEIGHT + 10 * ROW_HEIGHT, 0, 60), 1000), { first: 0, last: 10 });
    assert.deepEqual(visibleRows(layoutFor(800, AXIS_HEIGHT + 10 * ROW_HEIGHT, 5 * ROW_HEIGHT + 3, 60), 1000), {
      first: 5,
      last: 16,
    });
    assert.deepEqual(visibleRows(layoutFor(800, 400, 0, 60), 3), { first: 0, last: 3 });
  });

  test('the key column fits the widest key, within bounds', () => {
    assert.ok(layoutFor(1000, 400, 0, 60).labelWidth < layoutFor(1000, 400, 0, 200).labelWidth);
    assert.ok(layoutFor(400, 400, 0, 2000).labelWidth <= 160, 'never more than 40 % of the width');
  });

  test('the hold under the pointer, the nearest within a few pixels, labels and waiters', () => {
    assert.equal(hitTest(store, viewport, layout, xOf(base + 5000), yOf(0), NOW)?.hold?.id, 1);
    assert.equal(hitTest(store, viewport, layout, xOf(base + 15_000), yOf(0), NOW)?.hold?.id, 2);
    assert.equal(
      hitTest(store, viewport, layout, xOf(base + 20_000) + 2, yOf(0), NOW)?.hold?.id,
      2,
      'just past the end',
    );
    assert.equal(hitTest(store, viewport, layout, xOf(base + 25_000), yOf(0), NOW)?.hold, undefined, 'a gap');
    const open = hitTest(store, viewport, layout, xOf(NOW - 1000), yOf(1), NOW);
    assert.equal(open?.hold?.id, 3, 'a hold still held reaches now');
    assert.equal(open?.waiters, 2);
    const label = hitTest(store, viewport, layout, 10, yOf(1), NOW);
    assert.deepEqual([label?.onLabel, label?.row.key, label?.hold], [true, 'lock:b', undefined]);
    assert.equal(hitTest(store, viewport, layout, 400, 5, NOW), undefined, 'the time axis');
    assert.equal(hitTest(store, viewport, layout, 400, yOf(2), NOW), undefined, 'below the last row');
  });
});

describe('text', () => {
  test('ticks fall on round times, at least the gap apart', () => {
    const { step, ticks } = timeTicks(NOW - 300_000, NOW, 1000, 90);
    assert.equal(step, 30_000);
    assert.equal(ticks.length, 11, 'both ends fall on round times');
    for (const tick of ticks) assert.equal(new Date(tick).getSeconds() % 30, 0);
    assert.equal(timeTicks(NOW, NOW + 2000, 1000, 90).step, 200);
  });

  test('clock times as precise as the step; durations readable at every scale', () => {
    const at = new Date(2025, 0, 15, 9, 5, 7, 42).getTime();
    assert.equal(clockTime(at, 1000), '09:05:07');
    assert.equal(clockTime(at, 100), '09:05:07.042');
    assert.equal(clockTime(new Date(2025, 0, 15, 9, 5).getTime(), 60_000), '09:05');
    assert.deepEqual([850, 2000, 6610, 27_140, 185_000, 7_800_000].map(duration), [
      '850 ms',
      '2 s',
      '6.61 s',
      '27.1 s',
      '3 min 05 s',
      '2 h 10 min',
    ]);
  });

  test("a hold's details say how it ended, and when they are approximate", () => {
    const expired = new Map(
      holdDetails(
        hold(1, 'lock:a', NOW - 10_000, NOW, { end: 'expired', leaseMs: 10_000, extensions: [NOW - 5000] }),
        NOW,
      ),
    );
    assert.match(expired.get('Ended') ?? '', /lease ran out.*lost the lock/);
    assert.equal(expired.get('Held for'), '10 s');
    assert.match(expired.get('Extended') ?? '', /^1×/);
    const open = new Map(holdDetails(hold(2, 'lock:a', NOW - 3000, undefined, { approximate: true }), NOW, 2000));
    assert.equal(open.get('To'), 'still held');
    assert.equal(open.get('Held for'), '3 s so far');
    assert.match(open.get('Approximate') ?? '', /every 2 s/);
  });
});

describe('owner colours', () => {
  test('one colour per owner, the same on every call and after a reload; the first twelve all differ', () => {
    const palette = new OwnerPalette();
    const owners = Array.from({ length: 12 }, (_, i) => `worker-${i}`);
    const colors = owners.map((owner) => palette.color(owner, 'dark'));
    assert.equal(new Set(colors).size, 12);
    assert.equal(palette.color('worker-3', 'dark'), colors[3]);
    const reloaded = new OwnerPalette(palette.saved());
    assert.deepEqual(
      owners.map((owner) => reloaded.color(owner, 'dark')),
      colors,
    );
    assert.notEqual(palette.color('worker-0', 'light'), colors[0], 'darker on a light background');
    for (const color of colors) {
      const hue = Number(/hsl\((\d+)/.exec(color)?.[1]);
      assert.ok(hue > 20 && hue < 340, `${color}: red means expired, so no owner is red`);
    }
  });
});
