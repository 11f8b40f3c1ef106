// Every quick fix the fixture corpus requires, applied by `redis-locksmith lint --fix` to the
// fixtures of one language together (one project, one helper), then checked by the language's own
// tools: the fixed files must still be programs (py_compile and no undefined names, php -l,
// ruby -c, node --check, TypeScript's compiler for syntax, `await` outside async functions and
// undeclared names), and the typed ones compile against the real client libraries (javac with the
// Jedis and Lettuce jars, go vet with go-redis, redigo and the modules the fixtures import;
// test/proofs pins them; no Rust fixture has a fix yet). lint-fixtures.test.ts parses fixed code
// with tree-sitter, which accepts what no interpreter does: `await` in a function that is not
// async, a name whose assignment the fix removed.
//
// Adding a language: a CHECKS entry. A fixed file that a compiler rejects for a fix bug already
// reported goes into KNOWN_BROKEN with the error it gives; the test fails once it compiles, so the
// entry goes when the bug does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import ts from 'typescript';
import { ensureCli, runCli } from './harness/cli';
import { ROOT } from './harness/vsix';
import { go, javac, writeGoModule } from './harness/toolchains';

const FIXTURES = join(__dirname, 'fixtures', 'lint');
const run = promisify(execFile);

// Names a function loads that nothing in the file binds: what a fix leaves when it removes an assignment.
const PYTHON_NAMES = `
import ast, builtins, sys
for path in sys.argv[1:]:
    tree = ast.parse(open(path).read())
    bound = set(dir(builtins)) | {"__file__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load): bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): bound.add(node.name)
        elif isinstance(node, ast.arg): bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name: bound.add(node.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
            print(f"{path}:{node.lineno}: {node.id} is not defined")
`;

/** TypeScript's errors that no fixture makes on purpose: syntax, `await` outside async functions, undeclared names. */
const TYPESCRIPT_ERRORS = new Set([1308, 2304, 2552]);

function typescriptProblems(files: string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ['node'],
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  });
  return [
    ...program.getSyntacticDiagnostics(),
    ...program.getSemanticDiagnostics().filter((diagnostic) => TYPESCRIPT_ERRORS.has(diagnostic.code)),
  ]
    .filter((diagnostic) => diagnostic.file && files.includes(diagnostic.file.fileName))
    .map((diagnostic) => {
      const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${diagnostic.file!.fileName}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    });
}

/** The command that checks one fixed file, or undefined for files no tool here checks. */
type Check = (file: string) => [string, string[]] | undefined;

/** What a compiler said about each fixed file it rejected: file (relative to the project) -> its first error. */
type Compile = (project: string, files: string[]) => Promise<Map<string, string>>;

/** javac over every fixed file and the helper the fixes wrote, against the Jedis and Lettuce jars. */
const compileJava: Compile = async (project, files) => {
  const rejected = new Map<string, string>();
  try {
    await javac(project, files, ['-nowarn']);
  } catch (error) {
    // An error line, then its source line and caret, then for a missing name `symbol: ...`.
    const errors = String(error).matchAll(/^(?:\.\/)?(\S+\.java):\d+: error: (.*)\n.*\n.*\n(?:\s+(symbol: .*))?/gm);
    for (const [, file, message, symbol] of errors) {
      if (!rejected.has(file)) rejected.set(file, symbol ? `${message}, ${symbol.replace(/\s+/g, ' ')}` : message);
    }
    if (rejected.size === 0) throw error;
  }
  return rejected;
};

/** go vet on each fixed file (each is a package of its own) in a module of the pinned libraries. */
const compileGo: Compile = async (project, files) => {
  writeGoModule(project, 'fixtures');
  const rejected = new Map<string, string>();
  for (const file of files) {
    try {
      await go(['vet', file], project);
    } catch (error) {
      const message = /^(?:vet: )?\S+\.go:\d+:\d+: (.*)$/m.exec(String(error))?.[1] ?? String(error);
      rejected.set(file, message);
    }
  }
  return rejected;
};

const CHECKS: Record<
  string,
  {
    ext: string;
    check?: Check;
    all?: (files: string[]) => [string, string[]];
    inProcess?: (files: string[]) => string[];
    compile?: Compile;
  }
> = {
  python: {
    ext: '.py',
    check: (file) => ['python3', ['-m', 'py_compile', file]],
    all: (files) => ['python3', ['-c', PYTHON_NAMES, ...files]],
  },
  php: { ext: '.php', check: (file) => ['php', ['-l', file]] },
  ruby: { ext: '.rb', check: (file) => ['ruby', ['-c', file]] },
  // A file with import/export is an ES module: checked under .mjs so Node reads it as one.
  javascript: {
    ext: '.js',
    check: (file) => {
      if (!/^(import|export)\b/m.test(readFileSync(file, 'utf8'))) return ['node', ['--check', file]];
      const module = `${file}.check.mjs`;
      copyFileSync(file, module);
      return ['node', ['--check', module]];
    },
  },
  go: { ext: '.go', check: (file) => ['gofmt', ['-e', '-l', file]], compile: compileGo },
  java: { ext: '.java', compile: compileJava },
  typescript: { ext: '.ts', inProcess: typescriptProblems },
};

const JEDIS_CONNECTION = /no suitable method found for acquire\(Jedis,String,Options\)/;

/**
 * Fixed files the compilers reject today, each for a fix bug reported to the lint fixes' owners,
 * with (part of) the first error: language/file -> that error.
 */
const KNOWN_BROKEN: Record<string, RegExp> = {
  // The helper fix hands Locksmith.acquire the Jedis connection of a try (Jedis jedis =
  // pool.getResource()); the Jedis helper takes the pool or a UnifiedJedis (a lease renews from
  // another thread, which a single Jedis connection cannot serve).
  'java/LOCK003-positive-jedis-finally-del.java': JEDIS_CONNECTION,
  'java/LOCK006-positive-constant-field.java': JEDIS_CONNECTION,
  'java/LOCK006-positive-jedis-set-locked.java': JEDIS_CONNECTION,
  'java/LOCK006-positive-jedis-setnx-one-del.java': JEDIS_CONNECTION,
  'java/seed-004-set-ex-nx.java': JEDIS_CONNECTION,
  'java/seed-004-setnx-del.java': JEDIS_CONNECTION,
  'java/seed-004-setnx-expire.java': JEDIS_CONNECTION,
  // The inline Lettuce fix uses List without importing java.util.List.
  'java/LOCK003-positive-lettuce-finally-del.java': /symbol: class List$/,
  // The fixture holds a JedisPooled, which Jedis 8 no longer has (RedisClient replaced it).
  'java/LOCK010-positive-fix-spin-then-release.java': /symbol: class JedisPooled$/,
  // The inline Go fixes use os, crypto/rand, fmt, math and time without adding their imports.
  'go/LOCK003-positive-defer-del.go': /^undefined: os$/,
  'go/LOCK004-positive-acquire-then-checked-del.go': /^undefined: os$/,
  'go/LOCK010-positive-fix-wait-then-release.go': /^undefined: os$/,
  'go/seed-003-getset-takeover.go': /^undefined: os$/,
  // The inline redigo fix takes its connection from a `pool` the function does not have (it has a conn).
  'go/LOCK003-positive-redigo-del-after-job.go': /^undefined: pool$/,
};

/** Fixtures of `language` with a line that must offer the fix. */
function fixable(language: string): string[] {
  return readdirSync(join(FIXTURES, language)).filter((name) =>
    /expect: [A-Z0-9, ]+ fix\b/.test(readFileSync(join(FIXTURES, language, name), 'utf8')),
  );
}

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && extname(entry.name) === ext && !entry.parentPath.includes('.git'))
    .map((entry) => join(entry.parentPath, entry.name));
}

async function problems(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { maxBuffer: 16 * 1024 * 1024 });
    // gofmt -l names files it would reformat; -e makes syntax errors fail instead.
    return command === 'python3' ? stdout.trim() : '';
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error(`${command} is not installed: run bash .ci/run (it installs it)`);
    return `${command} ${args.at(-1)}: ${stderr || stdout}`.trim();
  }
}

// Inside the repository (ignored by git and the type check) so the fixed TypeScript finds node_modules.
mkdirSync(join(ROOT, '.test-artifacts'), { recursive: true });
const work = mkdtempSync(join(ROOT, '.test-artifacts', 'fix-compiles-'));
before(ensureCli);
after(() => rmSync(work, { recursive: true, force: true }));

describe('fixed fixtures still compile', () => {
  for (const [language, { ext, check, all, inProcess, compile }] of Object.entries(CHECKS)) {
    test(language, async () => {
      const names = fixable(language);
      assert.ok(names.length > 0, `no ${language} fixture with a fix`);
      const project = join(work, language);
      mkdirSync(project, { recursive: true });
      await run('git', ['init', '-q'], { cwd: project });
      for (const name of names) copyFileSync(join(FIXTURES, language, name), join(project, name));

      const fixed = await runCli(['lint', '--fix', '--max-warnings', '-1'], project);
      assert.equal(fixed.code, 0, fixed.stderr);
      const fixedFiles = [...fixed.stdout.matchAll(/^Fixed (\S+):/gm)].map((match) => match[1]).sort();
      assert.deepEqual(fixedFiles, [...names].sort(), 'every fixture with a fix marker was fixed');

      const files = filesUnder(project, ext);
      const found: string[] = [];
      for (const file of files) {
        const command = check?.(file);
        if (command) found.push(await problems(...command));
      }
      if (all) found.push(await problems(...all(files)));
      if (inProcess) found.push(...inProcess(files));
      const report = found.filter(Boolean).map((line) => line.replaceAll(`${project}/`, ''));
      assert.deepEqual(report, [], `fixed ${language} files, in ${relative(process.cwd(), project)}`);
      if (!compile) return;

      const rejected = await compile(
        project,
        files.map((file) => relative(project, file)),
      );
      const unexpected = [...rejected]
        .filter(([file, message]) => !KNOWN_BROKEN[`${language}/${file}`]?.test(message))
        .map(([file, message]) => `${file}: ${message}`);
      const nowCompiling = Object.keys(KNOWN_BROKEN)
        .filter((entry) => entry.startsWith(`${language}/`))
        .filter((entry) => !rejected.has(entry.slice(language.length + 1)))
        .map((entry) => `${entry} compiles now: remove it from KNOWN_BROKEN`);
      assert.deepEqual(
        [...unexpected, ...nowCompiling],
        [],
        `compiled ${language} fixes, in ${relative(process.cwd(), project)}`,
      );
    });
  }
});
