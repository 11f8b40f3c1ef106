// The linter on big inputs. Part 1: a 10,000-line file per language (bench/lint-corpus.ts:
// ordinary backend code with a few lock mistakes and correct locks), in process: (a) cold
// analysis with analyzeText (full parse + rules), (b) the per-keystroke path: one
// AnalyzedDocument, a one-character edit in the middle, doc.edit(...) then analyze(newText),
// against the floor measured in the same run: (c) a bare tree-sitter full parse of the same text
// and (d) a bare incremental reparse after the same edit. Part 2: the built
// server (`node server/out/server.js --stdio`) over vscode-jsonrpc: didOpen of 2,000 files
// until every publishDiagnostics arrived, against the same files parsed in process; then the
// 10,000-line files opened in it too, keystrokes sent to them, everything closed; the server's
// RSS (VmRSS, VmHWM from /proc) along the way. Prints tables; not a test.
//   npm run bench:lint -- [--runs 21] [--warmup 3] [--files 2000] [--lines 10000] [--keystrokes 5]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Edit, Tree } from '@vscode/tree-sitter-wasm';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { AnalyzedDocument, analyzeText } from '../server/src/analysis';
import { parserFor } from '../server/src/analysis/parsers';
import { bigFile, EXTENSION, GRAMMAR, LANGUAGES, workspace, type Language, type SourceFile } from './lint-corpus';
import { median, sum, table } from './stats';

const ROOT = join(__dirname, '..');
const SERVER = join(ROOT, 'server', 'out', 'server.js');
/** The targets (issue 17): a keystroke in a 10,000-line file, a cold open against a bare parse, the server's memory. */
const KEYSTROKE_TARGET_MS = 20;
const COLD_TARGET_RATIO = 1.3;
const MEMORY_TARGET_MB = 300;
/** The server's quiet time after a keystroke before it re-checks (server/src/server.ts). */
const DEBOUNCE_MS = 150;

const ms = (value: number, digits = 1) => value.toFixed(digits);
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** Parses `file` bare (the floor); throws on a syntax error, since the corpus must be clean. */
async function bareParse(file: SourceFile): Promise<void> {
  const tree = (await parserFor(GRAMMAR[file.language])).parse(file.text);
  const broken = !tree || tree.rootNode.hasError;
  tree?.delete();
  if (broken) throw new Error(`${file.name} (${file.language}) does not parse cleanly: fix bench/lint-corpus.ts`);
}

// ---------------------------------------------------------------------------------------------
// Part 1: one 10,000-line file per language, in process.

/** A place in the middle of the file to type at: right after the opening quote of a string. */
function editPoint(file: SourceFile): { index: number; row: number; column: number } {
  const lines = file.text.split('\n');
  let index = 0;
  const middle = Math.floor(lines.length / 2);
  for (let row = 0; row < lines.length; row++) {
    const match = row >= middle && !/<<[<~]|changelog/.test(lines[row]) ? /["']([a-z])/i.exec(lines[row]) : null;
    if (match) return { index: index + match.index + 1, row, column: match.index + 1 };
    index += lines[row].length + 1;
  }
  throw new Error(`no string literal after the middle of ${file.name}`);
}

/** Typing `x` at `at`, or deleting it again: the new text and the tree-sitter edit. */
function keystroke(
  text: string,
  at: { index: number; row: number; column: number },
  insert: boolean,
): { text: string; edit: Edit } {
  const start = { row: at.row, column: at.column };
  const after = { row: at.row, column: at.column + 1 };
  return insert
    ? {
        text: text.slice(0, at.index) + 'x' + text.slice(at.index),
        edit: {
          startIndex: at.index,
          oldEndIndex: at.index,
          newEndIndex: at.index + 1,
          startPosition: start,
          oldEndPosition: start,
          newEndPosition: after,
        },
      }
    : {
        text: text.slice(0, at.index) + text.slice(at.index + 1),
        edit: {
          startIndex: at.index,
          oldEndIndex: at.index + 1,
          newEndIndex: at.index,
          startPosition: start,
          oldEndPosition: after,
          newEndPosition: start,
        },
      };
}

interface BigResult {
  file: SourceFile;
  findings: number;
  cold: number[];
  edit: number[];
  parse: number[];
  /** Bare incremental reparse after the same edit. */
  incremental: number[];
}

async function measureBig(file: SourceFile, runs: number, warmup: number): Promise<BigResult> {
  const parser = await parserFor(GRAMMAR[file.language]);
  const findings = (await analyzeText(file.language, file.text)).length;
  const at = editPoint(file);

  // The document the keystrokes go to, and the bare tree for the incremental floor.
  const document = new AnalyzedDocument(file.language);
  await document.analyze(file.text);
  let documentText = file.text;
  let documentInserted = false;
  let floorTree: Tree | undefined = parser.parse(file.text) ?? undefined;
  let floorText = file.text;
  let floorInserted = false;

  const result: BigResult = { file, findings, cold: [], edit: [], parse: [], incremental: [] };
  const variants: { samples: number[]; run: () => void | Promise<void> }[] = [
    {
      samples: result.cold,
      run: async () => {
        const found = await analyzeText(file.language, file.text);
        if (found.length !== findings)
          throw new Error(`${file.language}: cold analysis found ${found.length}, then ${findings}`);
      },
    },
    {
      samples: result.edit,
      run: async () => {
        const next = keystroke(documentText, at, !documentInserted);
        const started = performance.now();
        document.edit(next.edit);
        const found = await document.analyze(next.text);
        const elapsed = performance.now() - started;
        documentText = next.text;
        documentInserted = !documentInserted;
        if (found.length !== findings)
          throw new Error(`${file.language}: after a keystroke ${found.length} findings, not ${findings}`);
        // Only the analysis is timed: the caller's bookkeeping runs outside.
        result.edit.push(elapsed);
      },
    },
    {
      samples: result.parse,
      run: () => {
        parser.parse(file.text)?.delete();
      },
    },
  ];
  {
    variants.push({
      samples: result.incremental,
      run: () => {
        const next = keystroke(floorText, at, !floorInserted);
        const started = performance.now();
        floorTree!.edit(next.edit);
        const tree = parser.parse(next.text, floorTree) ?? undefined;
        const elapsed = performance.now() - started;
        floorTree!.delete();
        floorTree = tree;
        floorText = next.text;
        floorInserted = !floorInserted;
        result.incremental.push(elapsed);
      },
    });
  }
  // Round 0..warmup-1 warm up (JIT, wasm tiers) and are not counted. Rotating order, so drift
  // on a shared machine hits every variant alike.
  for (let round = 0; round < warmup + runs; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + round) % variants.length];
      const counted = variant.samples.length;
      const started = performance.now();
      await variant.run();
      const elapsed = performance.now() - started;
      // Variants that time themselves pushed a sample; the others are timed here.
      if (variant.samples.length === counted) variant.samples.push(elapsed);
      if (round < warmup) variant.samples.pop();
    }
  }
  document.dispose();
  floorTree?.delete();
  return result;
}

// ---------------------------------------------------------------------------------------------
// Part 2: the built server over stdio.

interface PublishDiagnosticsParams {
  uri: string;
  version?: number;
  diagnostics: unknown[];
}

/** Waits for publishDiagnostics of one document: of `version`, or the empty one sent on close. */
class DiagnosticsWaiter {
  private waiters = new Map<
    string,
    { version: number | 'closed'; resolve(params: PublishDiagnosticsParams): void }[]
  >();

  constructor(connection: MessageConnection) {
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      const list = this.waiters.get(params.uri);
      const i =
        list?.findIndex((w) =>
          w.version === 'closed'
            ? params.version === undefined && params.diagnostics.length === 0
            : w.version === params.version,
        ) ?? -1;
      if (i < 0) return;
      list!.splice(i, 1)[0].resolve(params);
      if (!list!.length) this.waiters.delete(params.uri);
    });
  }

  /** Register before sending what triggers the publish. */
  wait(uri: string, version: number | 'closed'): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve) => {
      const list = this.waiters.get(uri) ?? [];
      list.push({ version, resolve });
      this.waiters.set(uri, list);
    });
  }
}

interface Memory {
  rssKb: number;
  hwmKb: number;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
}

const sleep = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

interface OpenedFile {
  file: SourceFile;
  uri: string;
}

function writeFiles(dir: string, files: SourceFile[]): OpenedFile[] {
  return files.map((file) => {
    const path = join(dir, file.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
    return { file, uri: pathToFileURL(path).href };
  });
}

async function openAll(
  connection: MessageConnection,
  waiter: DiagnosticsWaiter,
  opened: OpenedFile[],
): Promise<{ ms: number; diagnostics: number }> {
  const published = opened.map(({ uri }) => waiter.wait(uri, 1));
  const started = performance.now();
  await Promise.all(
    opened.map(({ file, uri }) =>
      connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: file.language, version: 1, text: file.text },
      }),
    ),
  );
  const results = await Promise.all(published);
  return { ms: performance.now() - started, diagnostics: sum(results.map((r) => r.diagnostics.length)) };
}

async function closeAll(
  connection: MessageConnection,
  waiter: DiagnosticsWaiter,
  opened: OpenedFile[],
): Promise<number> {
  const cleared = opened.map(({ uri }) => waiter.wait(uri, 'closed'));
  const started = performance.now();
  await Promise.all(
    opened.map(({ uri }) => connection.sendNotification('textDocument/didClose', { textDocument: { uri } })),
  );
  await Promise.all(cleared);
  return performance.now() - started;
}

interface ServerResult {
  idle: Memory;
  afterWorkspace: Memory;
  afterBig: Memory;
  afterClose: Memory;
  /** The workspace opened again after everything was closed: is the memory reused or leaked? */
  afterReopen: Memory;
  reopenMs: number;
  reopenDiagnostics: number;
  settleMs: number;
  workspaceMs: number;
  workspaceDiagnostics: number;
  /** Per language: didOpen of the 10,000-line file until its diagnostics, ms. */
  bigOpenMs: Map<Language, number>;
  bigDiagnostics: Map<Language, number>;
  /** Per language: didChange (one character) until the new diagnostics, minus the debounce, ms. */
  keystrokeMs: Map<Language, number[]>;
  closeMs: number;
  exitCode: number | null;
}

async function runServer(
  dir: string,
  files: OpenedFile[],
  big: OpenedFile[],
  warm: OpenedFile[],
  keystrokes: number,
  settleMs: number,
): Promise<ServerResult> {
  const server = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  const connection = createMessageConnection(
    new StreamMessageReader(server.stdout),
    new StreamMessageWriter(server.stdin),
  );
  const waiter = new DiagnosticsWaiter(connection);
  connection.listen();
  try {
    const root = pathToFileURL(dir).href;
    // No workspace/configuration capability: the server uses its default settings (every rule on).
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: root,
      workspaceFolders: [{ uri: root, name: 'bench' }],
      capabilities: {},
    });
    await connection.sendNotification('initialized', {});
    await sleep(500);
    const idle = memoryOf(server.pid!);

    // Warm-up: one small file per language loads every grammar (wasm compile) before timing.
    await openAll(connection, waiter, warm);
    await closeAll(connection, waiter, warm);

    const workspaceRun = await openAll(connection, waiter, files);
    const afterWorkspace = memoryOf(server.pid!);

    const bigOpenMs = new Map<Language, number>();
    const bigDiagnostics = new Map<Language, number>();
    const keystrokeMs = new Map<Language, number[]>();
    for (const opened of big) {
      const run = await openAll(connection, waiter, [opened]);
      bigOpenMs.set(opened.file.language, run.ms);
      bigDiagnostics.set(opened.file.language, run.diagnostics);
    }
    for (const { file, uri } of big) {
      const at = editPoint(file);
      const samples: number[] = [];
      for (let k = 0; k < keystrokes; k++) {
        const version = k + 2;
        const insert = k % 2 === 0;
        const range = insert
          ? { start: { line: at.row, character: at.column }, end: { line: at.row, character: at.column } }
          : { start: { line: at.row, character: at.column }, end: { line: at.row, character: at.column + 1 } };
        const published = waiter.wait(uri, version);
        const started = performance.now();
        await connection.sendNotification('textDocument/didChange', {
          textDocument: { uri, version },
          contentChanges: [{ range, text: insert ? 'x' : '' }],
        });
        const params = await published;
        samples.push(performance.now() - started - DEBOUNCE_MS);
        if (params.diagnostics.length !== bigDiagnostics.get(file.language)) {
          throw new Error(
            `${file.language}: ${params.diagnostics.length} diagnostics after a keystroke, ${bigDiagnostics.get(file.language)} before`,
          );
        }
      }
      keystrokeMs.set(file.language, samples);
    }
    const afterBig = memoryOf(server.pid!);

    const closeMs = await closeAll(connection, waiter, [...files, ...big]);
    await sleep(settleMs);
    const afterClose = memoryOf(server.pid!);

    const reopen = await openAll(connection, waiter, files);
    const afterReopen = memoryOf(server.pid!);
    await closeAll(connection, waiter, files);

    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    const exitCode = await Promise.race([exited, sleep(5000).then(() => 'timeout' as const)]);
    if (exitCode === 'timeout') throw new Error('the server did not exit within 5 s of shutdown + exit');
    return {
      idle,
      afterWorkspace,
      afterBig,
      afterClose,
      afterReopen,
      reopenMs: reopen.ms,
      reopenDiagnostics: reopen.diagnostics,
      settleMs,
      workspaceMs: workspaceRun.ms,
      workspaceDiagnostics: workspaceRun.diagnostics,
      bigOpenMs,
      bigDiagnostics,
      keystrokeMs,
      closeMs,
      exitCode,
    };
  } finally {
    connection.dispose();
    if (server.exitCode === null && server.signalCode === null) server.kill();
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '21' },
      warmup: { type: 'string', default: '3' },
      files: { type: 'string', default: '2000' },
      lines: { type: 'string', default: '10000' },
      keystrokes: { type: 'string', default: '5' },
      'workspace-rounds': { type: 'string', default: '3' },
      settle: { type: 'string', default: '3000' },
    },
  });
  const runs = Number(values.runs);
  const warmup = Number(values.warmup);
  const fileCount = Number(values.files);
  const bigLines = Number(values.lines);
  const keystrokes = Number(values.keystrokes);
  const workspaceRounds = Number(values['workspace-rounds']);
  const settleMs = Number(values.settle);
  if (runs < 15) throw new Error('--runs must be at least 15');
  try {
    readFileSync(SERVER);
  } catch {
    throw new Error(`${SERVER} is missing: run npm run build first`);
  }
  const benchStarted = performance.now();
  console.log(
    `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; medians of ${runs} interleaved runs after ${warmup} warm-up rounds\n`,
  );

  // Corpus and sanity: every file parses without errors and the planted mistakes are found.
  const bigFiles = LANGUAGES.map((language) => bigFile(language, bigLines));
  for (const file of bigFiles) {
    await bareParse(file);
    const found = (await analyzeText(file.language, file.text)).map((f) => f.code).sort();
    // A Lua file is one script: its LOCK007 problems are one finding.
    if (found.length < (file.language === 'lua' ? 1 : 3))
      throw new Error(
        `${file.language}: only ${found.length} findings in the ${file.lines}-line file; the corpus should plant more`,
      );
    if (found.join() !== file.expected.join()) {
      console.log(
        `note: ${file.language} findings ${found.join(',')} differ from the planted ${file.expected.join(',')}`,
      );
    }
  }

  // Part 1.
  console.log(`Part 1: one ${bigLines.toLocaleString('en')}-line file per language, in process`);
  const results: BigResult[] = [];
  for (const file of bigFiles) results.push(await measureBig(file, runs, warmup));
  const rows = results.map((r) => {
    const cold = median(r.cold);
    const edit = median(r.edit);
    const parse = median(r.parse);
    const incremental = r.incremental.length ? median(r.incremental) : undefined;
    return [
      r.file.language,
      r.file.lines.toLocaleString('en'),
      `${(r.file.text.length / 1024).toFixed(0)}`,
      String(r.findings),
      ms(cold),
      ms(edit),
      ms(parse),
      incremental === undefined ? '-' : ms(incremental),
      (cold / parse).toFixed(2),
      incremental === undefined ? (edit / parse).toFixed(2) : (edit / incremental).toFixed(2),
      edit <= KEYSTROKE_TARGET_MS ? 'met' : 'MISSED',
      cold / parse <= COLD_TARGET_RATIO ? 'met' : 'MISSED',
    ];
  });
  console.log(
    table(
      [
        'language',
        'lines',
        'KiB',
        'findings',
        '(a) cold ms',
        '(b) edit ms',
        '(c) parse ms',
        '(d) incr parse ms',
        '(a)/(c)',
        '(b)/(d)',
        `(b) <= ${KEYSTROKE_TARGET_MS} ms`,
        `(a)/(c) <= ${COLD_TARGET_RATIO}`,
      ],
      rows,
    ),
  );
  console.log(`
(a) cold: analyzeText of the whole file: a full tree-sitter parse, the Redis-call scan and the
    rules; what a didOpen costs. (b) edit: one AnalyzedDocument kept across runs; a one-character
    insert or delete (alternately) inside a string literal in the middle of the file, doc.edit()
    then analyze(newText): the incremental reparse plus the rules over the whole file; what every
    keystroke costs after the debounce (only the units whose text changed are read again).
    (c) parse: bare parserFor(grammar).parse(text) of the same text (Lua too: tree-sitter's Lua
    grammar), the floor any tree-sitter linter pays on open. (d) incr parse: bare tree.edit() +
    parser.parse(newText, oldTree) after the same keystroke, the floor of (b). Times are medians in
    ms; targets: (b) <= ${KEYSTROKE_TARGET_MS} ms, (a) <= ${COLD_TARGET_RATIO} x (c).`);

  // Part 2: the workspace, in process first (the floor), then in the server.
  const files = workspace(fileCount);
  const workspaceLines = sum(files.map((f) => f.lines));
  const byLanguage = LANGUAGES.map(
    (language) => `${language} ${files.filter((f) => f.language === language).length}`,
  ).join(', ');
  const withMistakes = files.filter((f) => f.expected.length > 0).length;
  console.log(
    `\nPart 2: a workspace of ${files.length.toLocaleString('en')} files, ${workspaceLines.toLocaleString('en')} lines (50 to 400 each; ${byLanguage}); ` +
      `${withMistakes} with a lock mistake; every file imports a Redis client, so none is skipped unparsed`,
  );
  const parseMs: number[] = [];
  const analyzeMs: number[] = [];
  let inProcessFindings = 0;
  for (let round = 0; round <= workspaceRounds; round++) {
    // Round 0 warms up; rotating order as above.
    for (let k = 0; k < 2; k++) {
      const started = performance.now();
      if ((k + round) % 2 === 0) {
        for (const file of files) await bareParse(file);
        if (round > 0) parseMs.push(performance.now() - started);
      } else {
        let found = 0;
        for (const file of files) found += (await analyzeText(file.language, file.text)).length;
        if (round > 0) analyzeMs.push(performance.now() - started);
        inProcessFindings = found;
      }
    }
  }
  const plantedFindings = sum(files.map((f) => f.expected.length));
  if (inProcessFindings !== plantedFindings)
    console.log(`note: analyzeText found ${inProcessFindings} in the workspace, ${plantedFindings} planted`);

  const dir = mkdtempSync(join(tmpdir(), 'locksmith-bench-lint-'));
  let server: ServerResult;
  try {
    const opened = writeFiles(dir, files);
    const big = writeFiles(
      dir,
      bigFiles.map((file) => ({ ...file, name: `big/${file.name}` })),
    );
    const warm = writeFiles(
      dir,
      LANGUAGES.map((language) => ({ ...bigFile(language, 60), name: `warm/warm.${EXTENSION[language]}` })),
    );
    server = await runServer(dir, opened, big, warm, keystrokes, settleMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const workspaceParse = median(parseMs);
  const workspaceAnalyze = median(analyzeMs);
  console.log(
    table(
      ['workspace (2,000 files)', 'total ms', 'files/s', 'diagnostics', 'x (c)'],
      [
        [
          '(e) server: didOpen all until every publishDiagnostics',
          ms(server.workspaceMs, 0),
          (files.length / (server.workspaceMs / 1000)).toFixed(0),
          String(server.workspaceDiagnostics),
          (server.workspaceMs / workspaceParse).toFixed(2),
        ],
        [
          `(e') server: the same, opened again after closing all`,
          ms(server.reopenMs, 0),
          (files.length / (server.reopenMs / 1000)).toFixed(0),
          String(server.reopenDiagnostics),
          (server.reopenMs / workspaceParse).toFixed(2),
        ],
        [
          '(f) in process: analyzeText of each file',
          ms(workspaceAnalyze, 0),
          (files.length / (workspaceAnalyze / 1000)).toFixed(0),
          String(inProcessFindings),
          (workspaceAnalyze / workspaceParse).toFixed(2),
        ],
        [
          '(c) in process: bare parse of each file (floor)',
          ms(workspaceParse, 0),
          (files.length / (workspaceParse / 1000)).toFixed(0),
          '-',
          '1.00',
        ],
      ],
    ),
  );
  console.log(`
(e) one server process, grammars already loaded by a warm-up file per language; from the first
    didOpen sent until the last of the ${files.length} publishDiagnostics arrived (the server checks each
    document as soon as it opens, no debounce). (e') the same files opened again in the same
    server after everything was closed (its memory already grown, see below). (f) and (c): the
    same files in this process, one after another, median of ${workspaceRounds} rounds after a warm-up.
    Diagnostics of (e) ${server.workspaceDiagnostics === inProcessFindings ? 'equal' : 'DIFFER FROM'} the findings of (f).`);

  const serverRows = bigFiles.map((file) => {
    const samples = server.keystrokeMs.get(file.language)!;
    return [
      file.language,
      ms(server.bigOpenMs.get(file.language)!),
      String(server.bigDiagnostics.get(file.language)),
      ms(median(samples)),
      ms(Math.max(...samples)),
      median(samples) <= KEYSTROKE_TARGET_MS ? 'met' : 'MISSED',
    ];
  });
  console.log(
    `\nthe ${bigLines.toLocaleString('en')}-line files opened in the same server, then ${keystrokes} keystrokes each (didChange, incremental)`,
  );
  console.log(
    table(
      [
        'language',
        'didOpen -> diagnostics ms',
        'diagnostics',
        `keystroke ms (minus ${DEBOUNCE_MS} ms debounce), median`,
        'max',
        `median <= ${KEYSTROKE_TARGET_MS} ms`,
      ],
      serverRows,
    ),
  );

  const memoryRows = [
    ['initialized, nothing open', server.idle],
    [`${files.length} workspace files open`, server.afterWorkspace],
    [`+ the ${bigFiles.length} ${bigLines.toLocaleString('en')}-line files, after the keystrokes`, server.afterBig],
    [`everything closed (${ms(server.closeMs, 0)} ms), then ${server.settleMs / 1000} s idle`, server.afterClose],
    [`the ${files.length} workspace files opened again (${ms(server.reopenMs, 0)} ms)`, server.afterReopen],
  ] as const;
  console.log('\nserver process memory (/proc/<pid>/status)');
  console.log(
    table(
      ['after', 'VmRSS', 'VmHWM (peak)'],
      memoryRows.map(([what, m]) => [what, mb(m.rssKb), mb(m.hwmKb)]),
    ),
  );
  // Reopening reuses the memory the first open took when it grows the RSS by much less than that.
  const firstOpenKb = server.afterWorkspace.rssKb - server.idle.rssKb;
  const reopenKb = server.afterReopen.rssKb - server.afterClose.rssKb;
  const reused = reopenKb <= firstOpenKb / 2;
  console.log(`
VmRSS and VmHWM of the server process (node + the tree-sitter runtime), read while it idles.
Only the documents edited most recently keep their syntax tree (tree-sitter's WebAssembly
memory, which can grow but never shrink); the others keep their findings and unit facts and
reparse on demand. Target with the ${files.length} workspace files open: <= ${MEMORY_TARGET_MB} MB VmRSS, ${server.afterWorkspace.rssKb / 1024 <= MEMORY_TARGET_MB ? 'met' : 'MISSED'}.
Opening the workspace again after closing everything grew the RSS by ${mb(Math.max(0, reopenKb))}, the first open by
${mb(firstOpenKb)}: ${reused ? 'the freed memory is reused (what remains is garbage V8 had not collected yet)' : 'memory is NOT reused (a leak?)'}.
server exit code after shutdown + exit: ${server.exitCode}`);

  // Summary: the numbers the README quotes.
  const range = (values: number[]) => `${ms(Math.min(...values))} to ${ms(Math.max(...values))} ms`;
  const editMedians = results.map((r) => median(r.edit));
  const coldMedians = results.map((r) => median(r.cold));
  const slowest = results.reduce((a, b) => (median(a.edit) >= median(b.edit) ? a : b));
  const editMet = editMedians.filter((v) => v <= KEYSTROKE_TARGET_MS).length;
  const coldMet = results.filter((r) => median(r.cold) / median(r.parse) <= COLD_TARGET_RATIO).length;
  const released = server.afterBig.rssKb - server.afterClose.rssKb;
  console.log(`
summary
- ${bigLines.toLocaleString('en')}-line file, per keystroke (b): ${range(editMedians)}; slowest ${slowest.file.language}. Target <= ${KEYSTROKE_TARGET_MS} ms: ${editMet === results.length ? 'met' : 'MISSED'} (met in ${editMet}/${results.length} languages).
- ${bigLines.toLocaleString('en')}-line file, cold (a): ${range(coldMedians)}, ${range(results.map((r) => median(r.cold) / median(r.parse))).replace(/ ms/g, '')} x a bare parse. Target <= ${COLD_TARGET_RATIO} x: met in ${coldMet}/${results.length} languages.
- in the server, a keystroke in a ${bigLines.toLocaleString('en')}-line file: ${range(bigFiles.map((f) => median(server.keystrokeMs.get(f.language)!)))} after the ${DEBOUNCE_MS} ms debounce.
- workspace of ${files.length.toLocaleString('en')} files (${workspaceLines.toLocaleString('en')} lines): ${(server.workspaceMs / 1000).toFixed(1)} s in the server (${(files.length / (server.workspaceMs / 1000)).toFixed(0)} files/s, ${server.workspaceDiagnostics} diagnostics), ${(server.workspaceMs / workspaceParse).toFixed(2)} x a bare parse of the same files in process (${(workspaceParse / 1000).toFixed(1)} s); ${(server.reopenMs / 1000).toFixed(1)} s (${(server.reopenMs / workspaceParse).toFixed(2)} x) when opened again.
- server memory: ${mb(server.idle.rssKb)} idle, ${mb(server.afterWorkspace.rssKb)} with the workspace open (target <= ${MEMORY_TARGET_MB} MB), ${mb(server.afterBig.rssKb)} with the ${bigLines.toLocaleString('en')}-line files too (peak ${mb(server.afterBig.hwmKb)}), ${mb(server.afterClose.rssKb)} after closing everything (${released >= 0 ? `${mb(released)} given back` : `${mb(-released)} more`}), ${mb(server.afterReopen.rssKb)} after opening the workspace again.
(whole benchmark: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
