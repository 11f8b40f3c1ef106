// Every fix and every suggestion the fixture corpora (test/fixtures/fix/ and test/fixtures/lint/)
// get, applied by `redis-locksmith lint --fix` (`--fix-type fix`, then `--fix-type suggestion` on a
// fresh copy) to each language's fixtures as one project (one helper), then checked by the
// language's own tools: py_compile and undefined names, php -l, ruby -c, node --check, TypeScript's
// compiler, javac against the real Jedis, Lettuce, Spring Data Redis and Valkey GLIDE jars, and go
// vet against the real go-redis, redigo and GLIDE modules (test/proofs/java/pom.xml,
// test/proofs/glide/pom.xml, test/proofs/go/go.mod, fetched once into ~/.cache/redis-locksmith/). A fixture may not compile on its own (a function it calls is
// elsewhere): what counts is that the fix adds no problem, so each tool runs on the unfixed copy too
// and the fixed copy may only report what that one did. C# is not checked: no .NET SDK here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import ts from 'typescript';
import { ensureCli, runCli } from '../harness/cli';
import { glideJavaClasspath, goEnv, javaClasspath, writeGoModule } from '../harness/toolchains';
import { ROOT } from '../harness/vsix';
import { fixClient } from '../server/src/quickFix';
import { fixtureFiles, LANGUAGE_OF, type FixtureFile } from './fix-fixtures';

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
            print(f"{path}: {node.id} is not defined")
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
    .map(
      (diagnostic) => `${diagnostic.file!.fileName}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
    );
}

/** Runs a tool; its complaints (stdout and stderr) on failure, or stdout when `always`. */
async function output(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  always = false,
) {
  try {
    const { stdout } = await run(command, args, { maxBuffer: 64 * 1024 * 1024, timeout: 600_000, ...options });
    return always ? stdout : '';
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error(`${command} is not installed: run bash .ci/run (it installs it)`);
    return `${stdout ?? ''}${stderr ?? ''}`;
  }
}

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && extname(entry.name) === ext && !entry.parentPath.includes('.git'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** One problem per line, with the project folder and line numbers taken out (a fix moves lines). */
const problemLines = (text: string, project: string) =>
  text
    .split('\n')
    .map((line) =>
      line
        .replaceAll(`${project}/`, '')
        .replace(/:\d+(:\d+)?:/g, ':')
        .replace(/line \d+/g, 'line')
        .trim(),
    )
    .filter((line) => line && !/^\^|^\d+ (errors?|warnings?)$|^#|^No syntax errors|compiler\.note\./.test(line));

interface Language {
  ext: string;
  /** Lays the fixtures out as one project in `dir`. */
  layout?: (dir: string, fixtures: FixtureFile[]) => Promise<void> | void;
  /** The problems its tools report for the project in `dir`, one a line. */
  check: (dir: string) => Promise<string>;
}

const eachFile = (command: string, args: (file: string) => string[]) => async (dir: string, ext: string) =>
  (await Promise.all(filesUnder(dir, ext).map((file) => output(command, args(file))))).join('\n');

const LANGUAGES: Record<string, Language> = {
  python: {
    ext: '.py',
    check: async (dir) =>
      [
        await eachFile('python3', (file) => ['-m', 'py_compile', file])(dir, '.py'),
        await output('python3', ['-c', PYTHON_NAMES, ...filesUnder(dir, '.py')], {}, true),
      ].join('\n'),
  },
  php: { ext: '.php', check: (dir) => eachFile('php', (file) => ['-l', file])(dir, '.php') },
  ruby: { ext: '.rb', check: (dir) => eachFile('ruby', (file) => ['-c', file])(dir, '.rb') },
  // A file with import/export is an ES module: checked under .mjs so Node reads it as one.
  javascript: {
    ext: '.js',
    check: (dir) =>
      eachFile('node', (file) => {
        if (!/^(import|export)\b/m.test(readFileSync(file, 'utf8'))) return ['--check', file];
        copyFileSync(file, `${file}.check.mjs`);
        return ['--check', `${file}.check.mjs`];
      })(dir, '.js'),
  },
  typescript: { ext: '.ts', check: (dir) => Promise.resolve(typescriptProblems(filesUnder(dir, '.ts')).join('\n')) },
  // Each file in a package of its own (fixtures reuse class names), compiled in one javac run.
  java: {
    ext: '.java',
    layout: (dir, fixtures) => {
      fixtures.forEach((fixture, i) => {
        const pkg = `p${i}`;
        mkdirSync(join(dir, pkg), { recursive: true });
        // A public class is in a file of its name (javac requires it).
        const publicClass = /^public\s+(?:abstract\s+|final\s+)*class\s+(\w+)/m.exec(fixture.text)?.[1];
        writeFileSync(
          join(dir, pkg, publicClass ? `${publicClass}.java` : fixture.file),
          `package ${pkg};\n${fixture.text}`,
        );
      });
    },
    check: async (dir) =>
      output('javac', [
        '-XDrawDiagnostics',
        '-Xmaxerrs',
        '100000',
        '-proc:none',
        '-d',
        join(dir, '.classes'),
        '-cp',
        // Jedis, Lettuce and Spring (test/proofs/java/pom.xml), and Valkey GLIDE (test/proofs/glide/pom.xml).
        `${await javaClasspath()}:${await glideJavaClasspath()}`,
        ...filesUnder(dir, '.java'),
      ]),
  },
  // The proofs' Go module (go-redis, redigo pinned), each file a package of its own.
  go: {
    ext: '.go',
    layout: (dir, fixtures) => {
      writeGoModule(dir);
      fixtures.forEach((fixture, i) => {
        mkdirSync(join(dir, `p${i}`), { recursive: true });
        writeFileSync(join(dir, `p${i}`, fixture.file), fixture.text);
      });
    },
    check: (dir) => output('go', ['vet', './...'], { cwd: dir, env: { ...process.env, ...goEnv() } }),
  },
};

// Inside the repository (ignored by git and the type check) so the fixed TypeScript finds node_modules.
mkdirSync(join(ROOT, '.test-artifacts'), { recursive: true });
const work = mkdtempSync(join(ROOT, '.test-artifacts', 'fix-compiles-'));
before(ensureCli);
after(() => rmSync(work, { recursive: true, force: true }));

/** The language's fixtures with a finding that gets a fix or suggestions, named apart across the two folders. */
function fixturesOf(language: string): FixtureFile[] {
  return fixtureFiles()
    .filter((fixture) => fixture.language === language && /expect:/.test(fixture.text))
    .map((fixture) => ({
      ...fixture,
      file: `${fixture.name.startsWith('fix/') ? 'fix' : 'lint'}_${basename(fixture.file).replace(/-/g, '_')}`,
    }));
}

/** Fixtures written on purpose against an API the pinned library no longer has: Jedis 2's set(key, value, "NX"). */
const OLDER_API = ['lint_LOCK002_positive_jedis_legacy_nx.java', 'lint_seed_004_reentrant_lock.java'];

/**
 * The fixtures as projects, one per client library (a project has one helper per client, at the
 * same place for ioredis and node-redis, phpredis and Predis, go-redis and redigo): `dir/<client>/`,
 * each its own git repository, laid out as the language needs.
 */
async function project(dir: string, language: string, fixtures: FixtureFile[]): Promise<void> {
  const byClient = new Map<string, FixtureFile[]>();
  for (const fixture of fixtures) {
    const id = fixClient(LANGUAGE_OF[fixture.extension], fixture.text, [])?.id ?? 'unknown';
    // Compiled apart: javac checks no method body for thrown exceptions once a file has errors of names.
    const client = OLDER_API.includes(fixture.file) ? `${id}-older-api` : id;
    byClient.set(client, [...(byClient.get(client) ?? []), fixture]);
  }
  for (const [client, files] of byClient) {
    const root = join(dir, client);
    mkdirSync(root, { recursive: true });
    await run('git', ['init', '-q'], { cwd: root });
    const { layout } = LANGUAGES[language];
    if (layout) await layout(root, files);
    else for (const fixture of files) writeFileSync(join(root, fixture.file), fixture.text);
  }
}

/** The problems of every client's project under `dir`. */
async function problemsOf(language: string, dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const client of readdirSync(dir)) {
    const root = join(dir, client);
    lines.push(...problemLines(await LANGUAGES[language].check(root), root).map((line) => `${client}/${line}`));
  }
  return lines;
}

// The compiled languages' fixtures compile as written against the real client libraries, so that a
// fix that breaks one shows, and a fixture written against an API the pinned library lacks does too.
describe('the Java and Go fixtures compile as written', () => {
  for (const language of ['java', 'go']) {
    test(language, async () => {
      const unfixed = join(work, `${language}-unfixed`);
      if (!existsDir(unfixed)) await project(unfixed, language, fixturesOf(language));
      const failing = new Set((await problemsOf(language, unfixed)).map((line) => basename(line.split(':')[0])));
      assert.deepEqual([...failing].sort(), language === 'java' ? OLDER_API : []);
    });
  }
});

describe('fixed fixtures add no problem the language tools find', () => {
  for (const language of Object.keys(LANGUAGES)) {
    for (const type of ['fix', 'suggestion'] as const) {
      test(`${language}, --fix-type ${type}`, async () => {
        const fixtures = fixturesOf(language);
        const unfixed = join(work, `${language}-unfixed`);
        const fixed = join(work, `${language}-${type}`);
        await project(fixed, language, fixtures);
        const result = await runCli(
          ['lint', '--fix', '--fix-type', type, '--max-warnings', '-1', '--format', 'json'],
          fixed,
        );
        assert.equal(result.code, 0, result.stderr);
        const changed = (JSON.parse(result.stdout) as { fixes: { path: string }[] }).fixes.map((fix) =>
          basename(fix.path),
        );
        if (type === 'fix') {
          // Every file with a line marked `fix` was fixed.
          const marked = fixtures
            .filter((fixture) => /expect: [A-Z0-9, ]+ (\w+ )*fix\b/.test(fixture.text))
            .map((fixture) => fixture.file);
          assert.deepEqual(
            marked.filter((file) => !changed.includes(file)),
            [],
            'files with a fix marker that were not fixed',
          );
        }
        assert.ok(changed.length > 0, `--fix-type ${type} changed no ${language} file`);
        if (!existsDir(unfixed)) await project(unfixed, language, fixtures);
        const before = new Set(await problemsOf(language, unfixed));
        const added = (await problemsOf(language, fixed)).filter((line) => !before.has(line));
        assert.deepEqual(added, [], `problems the fixes added, in ${relative(process.cwd(), fixed)}`);
      });
    }
  }
});

/**
 * A project with no place for the helper: the helper rewrite writes the self-contained inline lock
 * (its imports, the user's client) instead. Java: a Locksmith.java of the user's own next to each
 * file, which the fix never overwrites; Go: no go.mod while the fix runs (the module comes back for
 * the check).
 */
const NO_HELPER_PLACE: Record<string, { before: (dir: string) => void; after: (dir: string) => void }> = {
  java: {
    before: (dir) => {
      for (const pkg of readdirSync(dir).filter((name) => /^p\d+$/.test(name)))
        writeFileSync(join(dir, pkg, 'Locksmith.java'), `package ${pkg};\n\nclass Locksmith {}\n`);
    },
    after: () => {},
  },
  go: {
    before: (dir) => {
      for (const file of ['go.mod', 'go.sum']) rmSync(join(dir, file), { force: true });
    },
    after: (dir) => writeGoModule(dir),
  },
};

describe('the inline lock, where the project has no place for a helper, adds no problem either', () => {
  for (const [language, place] of Object.entries(NO_HELPER_PLACE)) {
    test(`${language}, --fix-type suggestion`, async () => {
      const fixtures = fixturesOf(language);
      const unfixed = join(work, `${language}-unfixed`);
      const fixed = join(work, `${language}-inline`);
      await project(fixed, language, fixtures);
      for (const client of readdirSync(fixed)) place.before(join(fixed, client));
      const result = await runCli(
        ['lint', '--fix', '--fix-type', 'suggestion', '--max-warnings', '-1', '--format', 'json'],
        fixed,
      );
      assert.equal(result.code, 0, result.stderr);
      const notes = (JSON.parse(result.stdout) as { fixes: { notes?: string[] }[] }).fixes.flatMap(
        (fix) => fix.notes ?? [],
      );
      assert.ok(
        notes.some((note) => note.startsWith('wrote the lock inline')),
        `no ${language} fix wrote the inline lock: ${JSON.stringify(notes)}`,
      );
      for (const client of readdirSync(fixed)) place.after(join(fixed, client));
      if (!existsDir(unfixed)) await project(unfixed, language, fixtures);
      const before = new Set(await problemsOf(language, unfixed));
      const added = (await problemsOf(language, fixed)).filter((line) => !before.has(line));
      assert.deepEqual(added, [], `problems the inline fixes added, in ${relative(process.cwd(), fixed)}`);
    });
  }
});

function existsDir(path: string): boolean {
  try {
    return readdirSync(path).length > 0;
  } catch {
    return false;
  }
}
