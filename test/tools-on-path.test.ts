// The tools the extension-host runner, the demo and the timeline's browser tests start are found
// on PATH, as a shell finds them, not at one distribution's path.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { findChromium } from '../harness/chromium';

const ROOT = join(__dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'out' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('Chromium is the first chromium or chromium-browser on PATH; without one the error names the package', (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'locksmith-path-'));
  const bin = mkdtempSync(join(tmpdir(), 'locksmith-path-'));
  t.after(() => [empty, bin].forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const browser = join(bin, 'chromium-browser');
  writeFileSync(browser, '#!/bin/sh\n');
  chmodSync(browser, 0o755);
  assert.equal(findChromium(`${empty}:${bin}`), browser);
  assert.throws(() => findChromium(empty), /no chromium or chromium-browser on PATH: sudo apt-get install -y chromium/);
});

test('the runner, the demo and the timeline tests name no /usr/bin path', () => {
  const files = [
    ...sources('test/vscode'),
    'harness/onPath.ts',
    ...sources('demo'),
    ...readdirSync(join(ROOT, 'test'))
      .filter((name) => /^(timeline|layers|locks-history|tools-on-path)/.test(name))
      .map((name) => join('test', name)),
  ];
  const offenders = files.filter((file) => /['"`]\/usr\/(local\/)?bin\//.test(readFileSync(join(ROOT, file), 'utf8')));
  assert.deepEqual(
    offenders.map((file) => relative('.', file)),
    [],
  );
});
