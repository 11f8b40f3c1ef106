// Go to Code That Takes This Lock, the server's half: a live key matched against the acquire
// sites of files on disk (and of open documents, newer than their files), most specific first,
// re-read when a file changes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LockSiteIndex } from '../server/src/lockSitesRequest';

const dir = mkdtempSync(join(tmpdir(), 'locksmith-sites-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const js = file(
  'invoices.js',
  "const Redis = require('ioredis');\nconst redis = new Redis();\nasync function pay(id, token) {\n  await redis.set(`lock:invoice:${id}`, token, 'PX', 30000, 'NX');\n}\n",
);
const py = file(
  'invoices.py',
  'import redis\n\nr = redis.Redis()\n\n\ndef pay(invoice_id, token):\n    r.set("lock:invoice:" + str(invoice_id), token, nx=True, px=30_000)\n',
);
const go = file(
  'lock.go',
  'package jobs\n\nimport (\n\t"fmt"\n\n\t"github.com/redis/go-redis/v9"\n)\n\nfunc Take(rdb *redis.Client, id int, token string) {\n\trdb.SetNX(ctx, fmt.Sprintf("lock:invoice:%d", id), token, 30*time.Second)\n}\n',
);
const java = file(
  'Reports.java',
  'import redis.clients.jedis.Jedis;\nimport redis.clients.jedis.params.SetParams;\n\nclass Reports {\n  static final String PREFIX = "lock:report:";\n  void run(Jedis jedis, String name, String token) {\n    jedis.set(PREFIX + name, token, SetParams.setParams().nx().px(30000));\n  }\n}\n',
);
const unrelated = file('cache.py', 'import redis\n\nr = redis.Redis()\nr.set("cache:page", "x")\n');

test('a live key finds every acquire site that can produce it, in each language', async () => {
  const index = new LockSiteIndex();
  const files = [js, py, go, java, unrelated];
  const invoice = await index.find({ key: 'lock:invoice:42', files }, () => undefined);
  assert.deepEqual(invoice.map((match) => match.file).sort(), [go, js, py].sort());
  const line = (match: (typeof invoice)[number]) => match.text.slice(0, match.start).split('\n').length;
  assert.equal(line(invoice.find((match) => match.file === py)!), 7);
  const report = await index.find({ key: 'lock:report:nightly', files }, () => undefined);
  assert.deepEqual(
    report.map((match) => [match.file, match.keyGlob]),
    [[java, 'lock:report:*']],
    'the constant of the same file resolved',
  );
  assert.deepEqual(await index.find({ key: 'lock:unknown', files }, () => undefined), []);
});

test("an open document's text wins over its file, and a changed file is read again", async () => {
  const index = new LockSiteIndex();
  const path = file('moved.py', 'import redis\n\nr = redis.Redis()\nr.set("lock:old", "t", nx=True, px=1000)\n');
  assert.equal((await index.find({ key: 'lock:old', files: [path] }, () => undefined)).length, 1);
  const open = 'import redis\n\nr = redis.Redis()\nr.set("lock:new", "t", nx=True, px=1000)\n';
  assert.equal((await index.find({ key: 'lock:new', files: [path] }, () => open)).length, 1);
  writeFileSync(path, open.replace('lock:new', 'lock:newer'));
  const later = await index.find({ key: 'lock:newer', files: [path] }, () => undefined);
  assert.equal(later.length, 1, 'the file is read again after it changed');
});
