// The snippet generator: every client x pattern renders, embeds the pack's Lua verbatim, puts
// tabstops on the key, the TTL and the body, and escapes snippet syntax; the CLI's messages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { loadPack, SCRIPT_NAMES } from '../pack/pack';
import { CLIENTS } from '../snippets/clients';
import { PATTERNS } from '../snippets/patterns';
import { renderCode, renderSnippet } from '../snippets/render';

const pack = loadPack();
const SCRIPTS_USED = {
  guard: ['acquire', 'release'],
  renew: ['acquire', 'extend', 'release'],
  fenced: ['acquire', 'release'],
};

for (const client of CLIENTS) {
  describe(client.id, () => {
    for (const pattern of PATTERNS) {
      test(`${pattern}: embeds exactly the pack's scripts it needs, verbatim`, () => {
        const code = renderCode(client.id, pattern, pack);
        for (const name of SCRIPT_NAMES) {
          const embedded = code.includes(pack[name].source.trimEnd());
          assert.equal(embedded, SCRIPTS_USED[pattern].includes(name), `${name} embedded: ${embedded}`);
        }
        assert.doesNotMatch(code, /«/, 'every marker is filled');
      });

      test(`${pattern}: tabstops on the key, the TTL and the body; snippet syntax escaped`, () => {
        const escape = (text: string) => text.replace(/[$}\\]/g, '\\$&');
        const snippet = renderSnippet(client.id, pattern, pack);
        assert.ok(snippet.includes(`\${1:${escape(client.quote('lock:{order:42}'))}}`), 'key is tabstop 1');
        assert.match(snippet, /\$\{\d:10000\}/);
        assert.ok(snippet.includes(`:${escape(client.defaultBody)}}`), 'body is a tabstop');
        // Outside tabstops every `$` is escaped, so VS Code inserts the code as written.
        const literal = snippet.replace(/\$\{\d+:(?:[^}\\]|\\.)*\}/g, '').replace(/\\./g, '');
        assert.doesNotMatch(literal, /[$}]/);
      });
    }
  });
}

test('renderCode indents a multi-line body to the slot', () => {
  const code = renderCode('redis-py', 'guard', pack, { body: 'first()\nsecond()' });
  assert.match(code, /\ntry:\n {4}first\(\)\n {4}second\(\)\nfinally:/);
});

describe('npm run snippet', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'snippets/cli.ts', ...args], { encoding: 'utf8' });

  test('prints the code for a client and pattern', () => {
    const result = cli('ioredis', 'fenced');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, renderCode('ioredis', 'fenced', pack));
  });

  test('--tabstops prints the VS Code snippet body', () => {
    assert.equal(cli('redis-py', 'renew', '--tabstops').stdout, renderSnippet('redis-py', 'renew', pack));
  });

  test('an unknown client lists the valid ones', () => {
    const result = cli('jedi', 'guard');
    assert.equal(result.status, 2);
    assert.equal(result.stderr, `unknown client 'jedi'; valid clients: ${CLIENTS.map((c) => c.id).join(', ')}\n`);
  });

  test('an unknown pattern lists the valid ones', () => {
    const result = cli('ioredis', 'mutex');
    assert.equal(result.status, 2);
    assert.equal(result.stderr, "unknown pattern 'mutex'; valid patterns: guard, renew, fenced\n");
  });

  test('no arguments: usage', () => {
    const result = cli();
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^usage: npm run snippet -- <client> <pattern>/);
  });
});

test('a quick fix that renames the client leaves the embedded Lua alone', () => {
  const luaCalls = (text: string) => text.match(/\bredis\.(?:p?call|error_reply|status_reply)\(/g)?.length ?? 0;
  for (const client of CLIENTS.filter((each) => each.clientVariable)) {
    for (const pattern of PATTERNS) {
      const plain = renderCode(client.id, pattern, pack);
      const renamed = renderCode(client.id, pattern, pack, {}, { clientExpression: 'this.store' });
      assert.ok(luaCalls(plain) > 0, `${client.id} ${pattern} embeds Lua`);
      assert.equal(luaCalls(renamed), luaCalls(plain), `${client.id} ${pattern}: redis.call in the Lua renamed`);
      assert.ok(renamed.includes('this.store'), `${client.id} ${pattern}: the client renamed`);
    }
  }
});
