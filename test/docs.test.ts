// The documentation stays true and navigable: every link and anchor of the README and docs/
// resolves, every image is a PNG of the repository, no line is over 200 characters, every rule
// has its section (the race in two lines, the fix, examples the linter agrees with), and every
// command and setting of package.json has exactly one row in a reference table.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_HELPER_IMPORT, renderCallSite } from '../snippets/callsite';
import { SETTINGS } from '../extension/src/settings';
import { AnalyzedDocument, mentionsRedis } from '../server/src/analysis';
import { RULE_CODES, RULE_TITLES } from '../server/src/catalogue';
import { githubAnchor } from '../server/src/cli/about';
import { ruleSections } from '../server/src/ruleDocs';
import { readPackageJson } from './packageJson';

const ROOT = join(__dirname, '..');

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The pages this test keeps: the README, CONTRIBUTING and everything under docs/. */
const PAGES = ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs')];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface CodeBlock {
  info: string;
  code: string;
}

/** A page's text with its code blocks blanked (same length), and the blocks. */
function withoutBlocks(text: string): { prose: string; blocks: CodeBlock[] } {
  const blocks: CodeBlock[] = [];
  const prose = text.replace(/^```([^\n]*)\n([\s\S]*?)^```$/gm, (whole: string, info: string, code: string) => {
    blocks.push({ info: info.trim(), code });
    return whole.replace(/[^\n]/g, ' ');
  });
  return { prose, blocks };
}

/** A page's prose: code blocks and inline code blanked. */
const proseOf = (text: string) => withoutBlocks(text).prose.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));

/** GitHub's anchors of a page: one per heading, a repeated one suffixed -1, -2, ... */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of withoutBlocks(text).prose.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = githubAnchor(match[1].replace(/\*|\[|\]\([^)]*\)/g, '').trim());
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** Links and images of a page's prose: `[text](target)` and `![alt](target)`. */
function linksOf(text: string): Array<{ target: string; image: boolean }> {
  return [...proseOf(text).matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
    target: match[2],
    image: match[1] === '!',
  }));
}

test('every relative link and anchor of the README, CONTRIBUTING and docs/ resolves', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const { target } of linksOf(read(page))) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // a web address: not followed here
      const [file, anchor] = target.split('#');
      const path = file ? join(dirname(page), decodeURIComponent(file)) : page;
      if (!existsSync(join(ROOT, path))) {
        broken.push(`${page}: ${target}: no ${path}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(join(ROOT, path)).isDirectory() || !path.endsWith('.md'))
        broken.push(`${page}: ${target}: an anchor into a file that is not a markdown page`);
      else if (!anchorsOf(read(path)).has(anchor)) broken.push(`${page}: ${target}: no heading #${anchor} in ${path}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the anchor reader follows GitHub: code and punctuation dropped, repeats numbered, fences skipped', () => {
  const anchors = anchorsOf(
    ['# The Node runtime: `LockScripts`', '## Proof', '## Proof', '```sh', '# a comment, not a heading', '```'].join(
      '\n',
    ),
  );
  assert.deepEqual([...anchors], ['the-node-runtime-lockscripts', 'proof', 'proof-1']);
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

test('every image the pages show is a PNG of the repository (npm run media retakes them)', () => {
  const images = PAGES.flatMap((page) =>
    linksOf(read(page))
      .filter((link) => link.image)
      .map((link) => ({ page, target: link.target })),
  );
  assert.ok(
    images.some((image) => image.page === 'README.md'),
    'the README shows a picture',
  );
  for (const { page, target } of images) {
    assert.ok(!/^[a-z]+:/i.test(target), `${page}: ${target}: a file of the repository, not a URL`);
    const path = join(ROOT, dirname(page), target);
    assert.ok(existsSync(path), `${page}: ${target} exists`);
    assert.deepEqual(readFileSync(path).subarray(0, 8), PNG_SIGNATURE, `${page}: ${target} is a PNG`);
  }
});

test('no line of the README or docs/ is over 200 characters, and the README is under 300 lines', () => {
  const long = PAGES.filter((page) => page !== 'CONTRIBUTING.md').flatMap((page) =>
    read(page)
      .split('\n')
      .flatMap((line, i) => (line.length > 200 ? [`${page}:${i + 1}: ${line.length} characters`] : [])),
  );
  assert.deepEqual(long, []);
  assert.ok(read('README.md').split('\n').length < 300, 'README.md has fewer than 300 lines');
});

describe('docs/rules.md: one section per rule', () => {
  const page = read('docs/rules.md');
  const sections = ruleSections(page);

  test('each rule has its heading, the race in two lines and the fix in one', () => {
    for (const code of RULE_CODES) {
      const section = sections.get(code);
      assert.ok(section, `docs/rules.md has ## ${code}: ${RULE_TITLES[code]}`);
      const [first, second, fix, after] = section.text.split('\n');
      assert.ok(
        first && second && !first.startsWith('Fix:') && !second.startsWith('Fix:'),
        `${code}: two lines of race`,
      );
      assert.match(fix, /^Fix: /, `${code}: the fix on the third line`);
      assert.equal(after, '', `${code}: a blank line after the fix`);
      assert.equal(section.race, `${first} ${second}`);
      assert.equal(section.fix, fix);
    }
  });

  const LANGUAGE_OF: Record<string, string> = {
    ts: 'typescript',
    python: 'python',
    java: 'java',
    go: 'go',
    php: 'php',
    csharp: 'csharp',
    ruby: 'ruby',
    lua: 'lua',
  };
  // A fixed example is a piece of a file that uses Redis: its client's import puts it in one.
  const IMPORT: Record<string, string> = {
    python: 'import redis\n',
    go: 'import "github.com/redis/go-redis/v9"\n',
    csharp: 'using StackExchange.Redis;\n',
  };

  /** Each section's tagged code blocks: `<language> unsafe`, `<language> fixed`. */
  const examples = RULE_CODES.flatMap((code) =>
    withoutBlocks(sections.get(code)?.text ?? '').blocks.flatMap(({ info, code: text }) => {
      const [language, role] = info.split(' ');
      return role === 'unsafe' || role === 'fixed' ? [{ rule: code, language, role, text }] : [];
    }),
  );

  test('every rule but LOCK008 (a whole helper file) shows its unsafe shape; every rule has fixed code', () => {
    for (const code of RULE_CODES) {
      const roles = examples.filter((example) => example.rule === code).map((example) => example.role);
      assert.equal(roles.includes('unsafe'), code !== 'LOCK008', `${code}: an unsafe example`);
      if (code !== 'LOCK008') assert.ok(roles.includes('fixed'), `${code}: fixed code`);
    }
    for (const example of examples) assert.ok(LANGUAGE_OF[example.language], `${example.rule}: ${example.language}`);
  });

  for (const example of examples) {
    test(`${example.rule}, ${example.role} (${example.language}): the linter ${example.role === 'unsafe' ? 'flags it' : 'finds nothing'}`, async () => {
      const languageId = LANGUAGE_OF[example.language];
      const text = example.role === 'fixed' ? (IMPORT[example.language] ?? '') + example.text : example.text;
      assert.ok(mentionsRedis(languageId, text), 'the linter reads it as Redis code');
      const document = new AnalyzedDocument(languageId);
      try {
        const found = (await document.analyze(text)).map((finding) => finding.code);
        assert.equal(document.syntaxErrorAt(), undefined, 'it parses');
        if (example.role === 'unsafe')
          assert.ok(found.includes(example.rule), `found ${found.join(', ') || 'nothing'}`);
        else assert.deepEqual(found, []);
      } finally {
        document.dispose();
      }
    });
  }

  test('the quick fix section shows exactly what the fix writes for each client', () => {
    const shown = withoutBlocks(page).blocks.flatMap(({ info, code }) => {
      const client = /^\w+ helper:(\S+)$/.exec(info)?.[1];
      return client ? [{ client, code }] : [];
    });
    assert.ok(shown.length >= 7, 'a call site per linted language');
    for (const { client, code } of shown) {
      const site = renderCallSite(client, 'guard', {}, { helperImport: DEFAULT_HELPER_IMPORT[client] });
      assert.equal(code, [...site.imports, site.code].join('\n'), client);
    }
  });
});

/** Reference-table rows across the pages whose first cell is exactly `` `id` ``: page and cells. */
function rowsFor(id: string): Array<{ page: string; cells: string[] }> {
  return PAGES.flatMap((page) =>
    read(page)
      .split('\n')
      .filter((line) => line.startsWith(`| \`${id}\` |`))
      .map((line) => ({
        page,
        cells: line
          .slice(1, -1)
          .split(' | ')
          .map((cell) => cell.trim()),
      })),
  );
}

test('every command of package.json has exactly one row, with its title', () => {
  for (const { command, title } of readPackageJson().contributes.commands) {
    const rows = rowsFor(command);
    assert.equal(rows.length, 1, `${command}: ${rows.map((row) => row.page).join(', ') || 'no row'}`);
    assert.equal(rows[0].cells[1], title, command);
  }
});

test('every setting of package.json has exactly one row, saying whether a workspace may set it as settings.ts does', () => {
  const properties = readPackageJson().contributes.configuration.properties;
  for (const name of Object.keys(properties)) {
    const rows = rowsFor(name);
    assert.equal(rows.length, 1, `${name}: ${rows.map((row) => row.page).join(', ') || 'no row'}`);
    const policy = SETTINGS[name];
    const workspace = ['application', 'machine'].includes(policy.scope)
      ? 'no'
      : policy.restricted
        ? 'trusted workspaces only'
        : 'yes';
    assert.equal(rows[0].cells[2], workspace, name);
  }
});

test('no row documents a command or a setting that package.json does not have', () => {
  const manifest = readPackageJson().contributes;
  const known = new Set([
    ...manifest.commands.map((command) => command.command),
    ...Object.keys(manifest.configuration.properties),
  ]);
  const unknown = PAGES.flatMap((page) =>
    [...read(page).matchAll(/^\| `((?:locksmith|redisLocksmith)\.[\w.]+)` \|/gm)]
      .filter((match) => !known.has(match[1]))
      .map((match) => `${relative(ROOT, join(ROOT, page))}: ${match[1]}`),
  );
  assert.deepEqual(unknown, []);
});
