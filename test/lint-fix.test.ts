// The lock fix as file changes: unsafe lock code becomes a call of the project's lock helper
// with its import, the helper created once and reused, a file of the user's own never
// overwritten, the inline lock outside a project; and LOCK008 on an outdated helper.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { analyzeText } from '../server/src/analysis';
import { lockFix, outdatedHelper, type FileChange } from '../server/src/lockFix';
import { renderHelper } from '../snippets/helper';
import { findClient } from '../snippets/render';

const pack = loadPack();
const root = mkdtempSync(join(tmpdir(), 'locksmith-fix-'));
after(() => rmSync(root, { recursive: true, force: true }));

const UNSAFE = `import socket
import time

import redis

r = redis.Redis()


def run_nightly_report():
    if not r.setnx("lock:nightly-report", socket.gethostname()):
        return
    r.expire("lock:nightly-report", 600)
    try:
        build_report()
    finally:
        r.delete("lock:nightly-report")


def build_report():
    time.sleep(5)
`;

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** Writes the changes to disk as an editor would apply them. */
function apply(changes: FileChange[]): void {
  for (const change of changes) {
    if ('create' in change) {
      mkdirSync(dirname(change.path), { recursive: true });
      writeFileSync(change.path, change.create, { flag: 'wx' });
      continue;
    }
    let text = readFileSync(change.path, 'utf8');
    for (const edit of [...change.edits].sort((a, b) => b.start - a.start)) {
      text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    }
    writeFileSync(change.path, text);
  }
}

async function fixFile(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  const findings = await analyzeText('python', text);
  const finding = findings.find((each) => each.fix);
  assert.ok(finding?.fix, `a fixable finding in ${path}`);
  return lockFix({
    client: findClient('redis-py'),
    plan: finding.fix,
    pack,
    text,
    file: path,
    root,
    manifests: [],
    readFile: read,
  });
}

describe('the lock fix calls the project helper', () => {
  test('the first fix adds the helper next to the file and leaves a short file that imports it', async () => {
    const file = join(root, 'jobs', 'report_job.py');
    const fix = await fixFile(file, UNSAFE);
    assert.equal(fix.title, "Replace with a call of the project's lock helper (redis-py), adding locksmith.py");
    const [created] = fix.changes;
    assert.ok('create' in created && created.path === join(root, 'jobs', 'locksmith.py'));
    apply(fix.changes);
    const fixed = readFileSync(file, 'utf8');
    assert.ok(fixed.split('\n').length <= 40, fixed);
    assert.match(fixed, /^import redis\nfrom locksmith import lock$/m);
    assert.match(fixed, /^ {4}with lock\(r, "lock:nightly-report", ttl_ms=600000\):\n {8}build_report\(\)$/m);
    assert.ok(!fixed.includes('redis.call'), 'no Lua in the fixed file');
    assert.deepEqual(await analyzeText('python', fixed), [], 'the fixed file has no findings');
    const helper = readFileSync(join(root, 'jobs', 'locksmith.py'), 'utf8');
    for (const name of ['acquire', 'release', 'extend'] as const) assert.ok(helper.includes(pack[name].sha1));
  });

  test('a second fix reuses the helper: still one copy of the Lua', async () => {
    const file = join(root, 'jobs', 'cleanup_job.py');
    const fix = await fixFile(file, UNSAFE.replace(/nightly-report/g, 'cleanup'));
    assert.equal(fix.changes.length, 1, 'no new file');
    apply(fix.changes);
    assert.match(readFileSync(file, 'utf8'), /^from locksmith import lock$/m);
  });

  test("a file of the user's own at the usual place is never overwritten: the inline lock instead", async () => {
    const dir = join(root, 'own');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'locksmith.py'), '# my own module\n');
    const fix = await fixFile(join(dir, 'job.py'), UNSAFE);
    assert.equal(fix.title, "Replace with Locksmith's vetted lock (redis-py)");
    assert.equal(readFileSync(join(dir, 'locksmith.py'), 'utf8'), '# my own module\n');
  });

  test('an unsaved file (no path) gets the inline lock', async () => {
    const [finding] = (await analyzeText('python', UNSAFE)).filter((each) => each.fix);
    const fix = lockFix({
      client: findClient('redis-py'),
      plan: finding.fix!,
      pack,
      text: UNSAFE,
      manifests: [],
      readFile: read,
    });
    assert.equal(fix.changes.length, 1);
    assert.ok(
      'edits' in fix.changes[0] && fix.changes[0].edits[0].text.includes('-- @script acquire'),
      'the inline lock embeds the scripts',
    );
  });
});

describe('LOCK008: an outdated lock helper', () => {
  const current = renderHelper('redis-py', pack, {}).text;

  test('an up-to-date helper has nothing to say', () => {
    assert.equal(outdatedHelper(current, pack), undefined);
  });

  test("a helper with another SHA1 in its header is flagged on its header, and the fix restores the pack's text", () => {
    const old = current.replace(pack.release.sha1, '0'.repeat(40));
    const finding = outdatedHelper(old, pack);
    assert.ok(finding);
    assert.equal(finding.code, 'LOCK008');
    assert.match(finding.message, /release\.lua is 000000000000; the pack's is /);
    assert.match(old.slice(finding.start, finding.end), /^# @locksmith-helper redis-py[\s\S]*@locksmith-digest \w+$/);
    assert.equal(finding.update, current);
  });
});
