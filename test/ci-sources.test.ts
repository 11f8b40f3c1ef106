// .ci/sid-sources, which .ci/run uses to add Debian unstable's source packages for the Valkey
// build: the mirror and keyring come only from the machine's own apt sources (deb822 or one-line
// format), and with none to take it fails naming the files it read. The repository names no
// Debian mirror.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const ROOT = join(__dirname, '..');
const SCRIPT = join(ROOT, '.ci', 'sid-sources');
const dir = mkdtempSync(join(tmpdir(), 'locksmith-sources-'));

after(() => rmSync(dir, { recursive: true, force: true }));

function sourcesFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT, ...args], (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr });
    });
  });
}

const stanza = (uri: string, key?: string) =>
  `Types: deb-src\nURIs: ${uri}\nSuites: sid\nComponents: main\n${key ? `Signed-By: ${key}\n` : ''}`;

test("deb822: the release's entry, not the security one, nor a disabled or source-only one", async () => {
  const file = sourcesFile(
    'debian.sources',
    [
      'Types: deb',
      'URIs: http://mirror.security.example/debian-security',
      'Suites: bookworm-security',
      'Components: main',
      'Signed-By: /keys/security.gpg',
      '',
      'Types: deb',
      'URIs: http://disabled.example/debian',
      'Suites: bookworm',
      'Enabled: no',
      '',
      'Types: deb-src',
      'URIs: http://sources-only.example/debian',
      'Suites: bookworm',
      '',
      'Types: deb',
      '# a comment inside the stanza',
      'URIs: http://mirror.example/debian http://second.example/debian',
      'Suites: bookworm bookworm-updates',
      'Components: main contrib',
      'Signed-By: /keys/archive.gpg',
      '',
    ].join('\n'),
  );
  const { code, stdout } = await run(['--codename', 'bookworm', file]);
  assert.equal(code, 0);
  assert.equal(stdout, stanza('http://mirror.example/debian', '/keys/archive.gpg'));
});

test('one-line format: the signed-by option when there is one, and no Signed-By when apt trusts its defaults', async () => {
  const signed = sourcesFile(
    'signed.list',
    '# the main archive\ndeb [arch=amd64 signed-by=/keys/a.gpg] http://one.example/debian bookworm main\n',
  );
  assert.equal(
    (await run(['--codename', 'bookworm', signed])).stdout,
    stanza('http://one.example/debian', '/keys/a.gpg'),
  );
  const plain = sourcesFile(
    'plain.list',
    'deb http://security.example/debian-security bookworm-security main\ndeb http://two.example/debian bookworm-updates main\n',
  );
  assert.equal((await run(['--codename', 'bookworm', plain])).stdout, stanza('http://two.example/debian'));
});

test('the first file with an entry wins, in the order given', async () => {
  const first = sourcesFile('first.sources', 'Types: deb\nURIs: http://first.example/debian\nSuites: trixie\n');
  const second = sourcesFile('second.list', 'deb http://second.example/debian trixie main\n');
  assert.equal((await run(['--codename', 'trixie', first, second])).stdout, stanza('http://first.example/debian'));
});

test('no entry for the release: exit 1, naming every file read, and nothing printed', async () => {
  const other = sourcesFile('other.list', 'deb http://old.example/debian bullseye main\n');
  const missing = join(dir, 'missing.sources');
  const { code, stdout, stderr } = await run(['--codename', 'bookworm', other, missing]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /no apt source for Debian bookworm/);
  assert.ok(stderr.includes(other) && stderr.includes(missing), stderr);
});

test('an inline key cannot be pointed at: exit 1, naming the file', async () => {
  const inline = sourcesFile(
    'inline.sources',
    'Types: deb\nURIs: http://inline.example/debian\nSuites: bookworm\nSigned-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n',
  );
  const { code, stdout, stderr } = await run(['--codename', 'bookworm', inline]);
  assert.deepEqual([code, stdout], [1, '']);
  assert.ok(stderr.includes(inline), stderr);
});

test('on this machine: the entry of its own sources, for its own release', async () => {
  const { code, stdout } = await run([]);
  assert.equal(code, 0);
  const uri = /^URIs: (\S+)$/m.exec(stdout)?.[1];
  assert.ok(uri, stdout);
  const own = execFileSync(
    'bash',
    ['-c', 'cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true'],
    {
      encoding: 'utf8',
    },
  );
  assert.ok(own.includes(uri), `${uri} is one of the machine's own sources`);
});

test('.ci/run asks .ci/sid-sources, and neither it nor the harness names a Debian mirror or keyring', () => {
  assert.match(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'), /^\s*sources=\$\(\.ci\/sid-sources\)$/m);
  const grep = spawnSync(
    'git',
    ['grep', '-n', '-I', '-e', 'deb\\.debian\\.org', '-e', 'debian-archive-keyring', '--', '.ci', 'harness'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.deepEqual([grep.status, grep.stdout], [1, ''], 'git grep finds nothing');
});
