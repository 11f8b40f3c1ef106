// The vetted Lua stays the pack's wherever Locksmith writes it: from every generated file of every
// client (each helper variant: core, each lock kind, all kinds, every JavaScript flavor; each inline
// pattern as plain code, indented as a quick fix puts it inside a function, and as the static
// snippet VS Code inserts), each embedded script is read back by its language's literal rules and
// its SHA1 compared with the pack's: the SHA1 EVALSHA runs it by and the Scripts view knows it by.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadPack, SCRIPT_NAMES, type ScriptName } from '../pack/pack';
import { CLIENTS } from '../snippets/clients';
import { helperKinds, renderHelper } from '../snippets/helper';
import { PATTERNS } from '../snippets/patterns';
import { renderCode } from '../snippets/render';
import { snippetFile, snippetName, staticSnippets } from '../snippets/static';
import { embeddedScriptNames, loadTemplate } from '../snippets/template';
import { LITERALS } from './golden-support';

const pack = loadPack();
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** The SHA1 of each script literal in `code` (by its `-- @script` line), and how many literals named each. */
function embeddedHashes(extension: string, code: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const literal of LITERALS[extension](code)) {
    const name = /^-- @script (\w+)\n/.exec(literal)?.[1];
    if (name) found.set(name, [...(found.get(name) ?? []), sha1(literal)]);
  }
  return found;
}

/** Asserts that `code` embeds exactly `expected`, each once and with the pack's SHA1. */
function assertVetted(extension: string, code: string, expected: readonly string[], where: string): void {
  const found = embeddedHashes(extension, code);
  assert.deepEqual([...found.keys()].sort(), [...expected].sort(), `${where}: the scripts embedded`);
  for (const [name, hashes] of found) {
    assert.deepEqual(hashes, [pack[name as ScriptName].sha1], `${where}: ${name}.lua byte for byte the pack's`);
  }
}

/** A VS Code snippet body as the editor inserts it: `\$`, `\}` and `\\` unescaped, tabstops by their defaults. */
const inserted = (body: string) => body.replace(/\$\{\d+:((?:[^}\\]|\\.)*)\}/g, '$1').replace(/\\([$}\\])/g, '$1');

for (const client of CLIENTS) {
  describe(`${client.id}: the embedded Lua is the pack's`, () => {
    test('in every helper variant', () => {
      const kindSets = [[], ...helperKinds(client.id).map((kind) => [kind]), helperKinds(client.id)];
      const flavors = client.extension === 'js' ? ['ts', 'esm', 'cjs'] : [undefined];
      for (const kinds of kindSets) {
        for (const flavor of flavors) {
          const options = { ...(flavor && { flavor }), ...(kinds.length && { kinds: kinds.join(',') }) };
          const { text } = renderHelper(client.id, pack, options);
          const expected = [...text.matchAll(/@locksmith-script (\w+)/g)].map((match) => match[1]);
          assert.ok(expected.length >= 3, 'the header lists the scripts');
          assertVetted(client.extension, text, expected, `helper ${JSON.stringify(options)}`);
        }
      }
    });

    for (const pattern of PATTERNS) {
      test(`in the inline ${pattern}: as code, indented into a function as a quick fix writes it, and as a snippet`, () => {
        const expected = embeddedScriptNames(loadTemplate(client, pattern));
        for (const indent of ['', '    ', '\t\t']) {
          const code = `${indent}${renderCode(client.id, pattern, pack, {}, { indent })}`;
          assertVetted(client.extension, code, expected, `${pattern} indented ${JSON.stringify(indent)}`);
        }
        const body = staticSnippets(pack).get(snippetFile(client))![snippetName(client, pattern, 'inline')].body;
        assertVetted(client.extension, inserted(body), expected, `${pattern} snippet`);
      });
    }
  });
}

/**
 * Pack v3's scripts that only the ioredis runtime runs (pack/queue.ts loads them from the pack by
 * name, so there is no copy to check); a helper that adopts one moves it out.
 */
const RUNTIME_ONLY: readonly ScriptName[] = ['queue_acquire', 'queue_release'];

test('every pack script is embedded somewhere, so this check covers it, or the runtime alone runs it', () => {
  const everywhere = new Set(
    CLIENTS.flatMap((client) => {
      const kinds = helperKinds(client.id).join(',');
      const { text } = renderHelper(client.id, pack, kinds ? { kinds } : {});
      return [...text.matchAll(/@locksmith-script (\w+)/g)].map((match) => match[1]);
    }),
  );
  assert.deepEqual([...everywhere].sort(), SCRIPT_NAMES.filter((name) => !RUNTIME_ONLY.includes(name)).sort());
});
