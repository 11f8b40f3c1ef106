// The CLI's .gitignore matcher and walk: each pattern form of gitignore(5) on its own, then the
// walk compared with git itself (`git ls-files --others --exclude-standard`) on a repository with
// nested ignore files, and on random patterns and trees.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { IgnoreFile, IgnoreStack } from '../server/src/cli/gitignore';
import { collectFiles } from '../server/src/cli/walk';
import { languageOfFile } from '../server/src/languages';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** [path, is a folder, ignored?] for each case of one ignore file. */
const CASES: { patterns: string; paths: [string, boolean, boolean][] }[] = [
  {
    patterns: '*.log',
    paths: [
      ['a.log', false, true],
      ['deep/down/a.log', false, true],
      ['a.logx', false, false],
      ['logs', true, false],
    ],
  },
  {
    patterns: '/build',
    paths: [
      ['build', true, true],
      ['build', false, true],
      ['src/build', true, false],
    ],
  },
  {
    patterns: 'build/',
    paths: [
      ['build', true, true],
      ['src/build', true, true],
      ['build', false, false],
    ],
  },
  {
    patterns: 'doc/frotz/',
    paths: [
      ['doc/frotz', true, true],
      ['a/doc/frotz', true, false],
    ],
  },
  {
    patterns: '**/foo',
    paths: [
      ['foo', false, true],
      ['a/foo', true, true],
      ['a/b/foo', false, true],
      ['a/foox', false, false],
    ],
  },
  {
    patterns: 'foo/**',
    paths: [
      ['foo', true, false],
      ['foo/a', false, true],
      ['foo/a/b', false, true],
    ],
  },
  {
    patterns: 'a/**/b',
    paths: [
      ['a/b', false, true],
      ['a/x/b', false, true],
      ['a/x/y/b', true, true],
      ['a/xb', false, false],
      ['c/a/b', false, false],
    ],
  },
  {
    patterns: 'src/*.js',
    paths: [
      ['src/a.js', false, true],
      ['src/x/a.js', false, false],
    ],
  },
  {
    patterns: '?.py',
    paths: [
      ['a.py', false, true],
      ['ab.py', false, false],
      ['x/b.py', false, true],
    ],
  },
  {
    patterns: '[abc].ts\n[!x-z]1.ts',
    paths: [
      ['b.ts', false, true],
      ['d.ts', false, false],
      ['a1.ts', false, true],
      ['y1.ts', false, false],
    ],
  },
  {
    patterns: '\\#notes.py\n\\!bang.py\n# a comment\n\n   ',
    paths: [
      ['#notes.py', false, true],
      ['!bang.py', false, true],
      ['# a comment', false, false],
    ],
  },
  {
    patterns: 'trailing.py   \nspace\\ ',
    paths: [
      ['trailing.py', false, true],
      ['space ', false, true],
      ['space', false, false],
    ],
  },
  {
    patterns: '*.ts\n!keep.ts',
    paths: [
      ['drop.ts', false, true],
      ['keep.ts', false, false],
      ['deep/keep.ts', false, false],
    ],
  },
  {
    patterns: '!keep.ts\n*.ts',
    paths: [['keep.ts', false, true]],
  },
];

describe('gitignore patterns', () => {
  for (const { patterns, paths } of CASES) {
    test(JSON.stringify(patterns), () => {
      const stack = IgnoreStack.EMPTY.with('/repo', IgnoreFile.parse(patterns));
      const decided = paths.map(([path, folder]) => [path, folder, stack.ignores(`/repo/${path}`, folder)]);
      assert.deepEqual(decided, paths);
    });
  }

  test('a deeper ignore file wins over a shallower one, and only below its folder', () => {
    const stack = IgnoreStack.EMPTY.with('/repo', IgnoreFile.parse('*.gen.ts')).with(
      '/repo/src',
      IgnoreFile.parse('!kept.gen.ts'),
    );
    assert.equal(stack.ignores('/repo/src/kept.gen.ts', false), false);
    assert.equal(stack.ignores('/repo/src/deep/kept.gen.ts', false), false);
    assert.equal(stack.ignores('/repo/kept.gen.ts', false), true);
    assert.equal(stack.ignores('/repo/src/other.gen.ts', false), true);
  });
});

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function gitRepo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'locksmith-ignore-'));
  made.push(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  writeTree(root, files);
  return root;
}

/** What git lists as untracked and not ignored, of the linted languages. */
function gitFiles(root: string, under = '.'): string[] {
  const listed = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z', under], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed
    .split('\0')
    .filter((path) => path && languageOfFile(path))
    .map((path) => relative(root, join(root, path)).split('\\').join('/'))
    .sort();
}

async function walkedFiles(root: string, under = '.'): Promise<string[]> {
  const { files } = await collectFiles([under], root);
  return files.map((file) => relative(root, file.path).split('\\').join('/')).sort();
}

describe('the walk lists what git lists', () => {
  test('nested ignore files, negation, folder-only and anchored patterns, **, info/exclude', async () => {
    const root = gitRepo({
      '.gitignore': [
        '# top',
        'build/',
        '*.gen.ts',
        '!keep.gen.ts',
        '/root-only.py',
        'logs/**/*.js',
        'docs/*/x.rb',
      ].join('\n'),
      '.git/info/exclude': 'scratch.go\n',
      'app.ts': '',
      'root-only.py': '',
      'sub/root-only.py': '',
      'build/out.js': '',
      'sub/build/out.js': '',
      'build.js': '',
      'a.gen.ts': '',
      'keep.gen.ts': '',
      'sub/keep.gen.ts': '',
      'logs/a.js': '',
      'logs/2024/b.js': '',
      'logs/2024/b.ts': '',
      'docs/one/x.rb': '',
      'docs/one/two/x.rb': '',
      'scratch.go': '',
      'sub/scratch.go': '',
      'vendor/.gitignore': '*\n!*.lua\n!.gitignore\n',
      'vendor/lib.js': '',
      'vendor/init.lua': '',
      'vendor/deep/more.lua': '',
      'pkg/.gitignore': '/*.php\n!/index.php\ntmp/\n',
      'pkg/a.php': '',
      'pkg/index.php': '',
      'pkg/inner/a.php': '',
      'pkg/tmp/t.cs': '',
      'pkg/inner/tmp/t.cs': '',
      'readme.md': '',
    });
    const expected = gitFiles(root);
    assert.ok(expected.length >= 10, 'the repository has files to find');
    assert.deepEqual(await walkedFiles(root), expected);
    // From a subfolder: the ignore files above it still apply.
    assert.deepEqual(await walkedFiles(root, 'pkg'), gitFiles(root, 'pkg'));
  });

  test('random patterns on random trees', async () => {
    const segment = fc.constantFrom('a', 'b', 'ab', 'x.ts', 'y.py', 'z.go');
    const filePath = fc
      .tuple(
        fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }),
        fc.constantFrom('a.ts', 'b.py', 'ab.go', 'x.ts'),
      )
      .map(([dirs, name]) => [...dirs, name].join('/'));
    const pattern = fc
      .tuple(
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.oneof(segment, fc.constantFrom('*', '**', '*.ts', '?.py', '[ab]*', 'a*')), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.boolean(),
      )
      .map(([negated, anchored, parts, folderOnly]) => {
        const body = parts.join('/');
        return `${negated ? '!' : ''}${anchored ? '/' : ''}${body}${folderOnly ? '/' : ''}`;
      });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(filePath, { minLength: 1, maxLength: 12 }),
        fc.array(pattern, { minLength: 1, maxLength: 4 }),
        fc.array(pattern, { maxLength: 3 }),
        async (paths, top, nested) => {
          // A file path may not also be a folder path.
          const files = paths.filter((path) => !paths.some((other) => other.startsWith(`${path}/`)));
          const tree: Record<string, string> = Object.fromEntries(files.map((path) => [path, '']));
          tree['.gitignore'] = top.join('\n');
          if (nested.length) tree['a/.gitignore'] = nested.join('\n');
          const root = gitRepo(tree);
          try {
            assert.deepEqual(await walkedFiles(root), gitFiles(root), `patterns ${JSON.stringify({ top, nested })}`);
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
