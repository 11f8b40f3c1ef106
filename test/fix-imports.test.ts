// The imports a fix leaves unused (server/src/fixes/imports.ts): the lines go, and a group that
// stood alone takes a blank line with it, so none is left doubled or leading.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unusedImports } from '../server/src/fixes/imports';

/** `before` with the fix's code change (`from` replaced by `to`) and the imports it left unused removed. */
function fixed(languageId: string, before: string, from: string, to: string): string {
  return unusedImports(languageId, before, before.replace(from, to))
    .reverse()
    .reduce((text, { start, end }) => text.slice(0, start) + text.slice(end), before)
    .replace(from, to);
}

const CLASS = 'class Job {\n    RedisClient jedis;\n    String token = UUID.randomUUID().toString();\n}\n';
const TOKEN = 'UUID.randomUUID().toString()';
const FIXED_CLASS = CLASS.replace(TOKEN, '"1"');

test('a group between blank lines goes with one of them', () => {
  const before = `package jobs;\n\nimport java.util.UUID;\n\nimport redis.clients.jedis.RedisClient;\n\n${CLASS}`;
  assert.equal(
    fixed('java', before, TOKEN, '"1"'),
    `package jobs;\n\nimport redis.clients.jedis.RedisClient;\n\n${FIXED_CLASS}`,
  );
});

test('CRLF: the blank line taken is a CRLF one', () => {
  const crlf = (text: string) => text.replace(/\n/g, '\r\n');
  const before = crlf(`package jobs;\n\nimport java.util.UUID;\n\nimport redis.clients.jedis.RedisClient;\n\n${CLASS}`);
  assert.equal(
    fixed('java', before, TOKEN, '"1"'),
    crlf(`package jobs;\n\nimport redis.clients.jedis.RedisClient;\n\n${FIXED_CLASS}`),
  );
});

test('a group at the top of the file takes the blank line after it while other imports follow', () => {
  const before = `import java.util.UUID;\n\nimport redis.clients.jedis.RedisClient;\n\n${CLASS}`;
  assert.equal(fixed('java', before, TOKEN, '"1"'), `import redis.clients.jedis.RedisClient;\n\n${FIXED_CLASS}`);
});

test("the top file's last imports keep their blank line (the fix's import goes there); part of a group takes none", () => {
  assert.equal(fixed('python', 'import uuid\n\nTOKEN = uuid.uuid4()\n', 'uuid.uuid4()', '"1"'), '\nTOKEN = "1"\n');
  const before = `// jobs\nimport java.util.UUID;\nimport redis.clients.jedis.RedisClient;\n\n${CLASS}`;
  assert.equal(
    fixed('java', before, TOKEN, '"1"'),
    `// jobs\nimport redis.clients.jedis.RedisClient;\n\n${FIXED_CLASS}`,
  );
});
