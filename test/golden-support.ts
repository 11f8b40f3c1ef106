// What the golden tests share: a readable diff, each language's string literals decoded as its
// compiler reads them (to read the embedded Lua back), and running a checker. The compile checks
// build against the real client libraries (harness/toolchains.ts), not stand-ins.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { findClient } from '../snippets/render';

const run = promisify(execFile);

/**
 * The clients whose generated code is pinned by golden files: StackExchange.Redis, whose library
 * needs NuGet (not reachable here), and Predis. Every other client's code runs against its real
 * library in test/snippets-proof.test.ts and test/helpers-proof.test.ts.
 */
export const GOLDEN_CLIENTS = ['stackexchange', 'predis'];
export const GOLDEN_DIR = join(__dirname, 'golden');
/** The golden file of the client's helper: its core, or with one part (`helper-<part>.<ext>`). */
export const helperGoldenPath = (client: string, part?: string) =>
  join(GOLDEN_DIR, client, `${part ? `helper-${part}` : 'helper'}.${findClient(client).extension}`);

/** The absolute path of a tool found on PATH (rustup's rustc, say), or undefined. */
export function onPath(tool: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, tool))
    .find((path) => existsSync(path));
}

export /** The first region where the two texts differ, with two lines of context: `-` golden, `+` rendered. */
function lineDiff(golden: string, rendered: string): string {
  const before = golden.split('\n');
  const now = rendered.split('\n');
  let start = 0;
  while (start < before.length && start < now.length && before[start] === now[start]) start++;
  let endBefore = before.length;
  let endNow = now.length;
  while (endBefore > start && endNow > start && before[endBefore - 1] === now[endNow - 1]) {
    endBefore--;
    endNow--;
  }
  const SHOWN = 12;
  const side = (sign: string, lines: string[]) => [
    ...lines.slice(0, SHOWN).map((line) => `${sign} ${line}`),
    ...(lines.length > SHOWN ? [`${sign} ... ${lines.length - SHOWN} more lines`] : []),
  ];
  return [
    `@@ line ${start + 1} @@`,
    ...before.slice(Math.max(0, start - 2), start).map((line) => `  ${line}`),
    ...side('-', before.slice(start, endBefore)),
    ...side('+', now.slice(start, endNow)),
    ...before.slice(endBefore, endBefore + 2).map((line) => `  ${line}`),
  ].join('\n');
}

// Each language's raw-string literal, decoded as its compiler reads it: the embedded scripts must
// come out byte for byte as the pack's files, final newline included, so their SHA1s are the pack's.

/** Removes `indent` from the start of every line, as C# and PHP do for the closing line's indentation. */
function dedent(lines: string[], indent: string): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return '';
    assert.ok(line.startsWith(indent), `line not indented like the closing delimiter: ${JSON.stringify(line)}`);
    return line.slice(indent.length);
  });
}

/** Java text blocks: incidental indentation (closing line included) and trailing spaces are stripped. */
export function javaTextBlocks(code: string): string[] {
  return [...code.matchAll(/"""[ \t]*\n([\s\S]*?)"""/g)].map(([, content]) => {
    assert.doesNotMatch(content, /\\/, 'text block without escapes');
    const lines = content.split('\n');
    const significant = lines.filter((line, index) => line.trim() !== '' || index === lines.length - 1);
    const incidental = Math.min(...significant.map((line) => /^[ \t]*/.exec(line)![0].length));
    return lines.map((line) => line.slice(incidental).replace(/[ \t]+$/, '')).join('\n');
  });
}

/** C# raw string literals: the closing line's indentation comes off every line; no final newline. */
export function csharpRawStrings(code: string): string[] {
  return [...code.matchAll(/"""[ \t]*\n([\s\S]*?)\n([ \t]*)"""/g)].map(([, content, indent]) =>
    dedent(content.split('\n'), indent).join('\n'),
  );
}

/** PHP nowdocs (7.3+): the closing marker's indentation comes off every line; no final newline. */
export function phpNowdocs(code: string): string[] {
  return [...code.matchAll(/<<<'(\w+)'\n([\s\S]*?)\n([ \t]*)\1\b/g)].map(([, , content, indent]) =>
    dedent(content.split('\n'), indent).join('\n'),
  );
}

/** Go raw strings, verbatim; whole-line comments are skipped, since their `names` are not literals. */
export function goRawStrings(code: string): string[] {
  const withoutComments = code.replace(/^[ \t]*\/\/.*$/gm, '');
  return [...withoutComments.matchAll(/`([^`]*)`/g)].map(([, content]) => content);
}

/** Rust raw strings r#"..."#, verbatim. */
export function rustRawStrings(code: string): string[] {
  return [...code.matchAll(/r#"([\s\S]*?)"#/g)].map(([, content]) => content);
}

export const LITERALS: Record<string, (code: string) => string[]> = {
  js: (code) => jsTemplateLiterals(code),
  py: (code) => pythonTripleQuoted(code),
  rb: (code) => rubySquigglyHeredocs(code),
  java: javaTextBlocks,
  cs: csharpRawStrings,
  php: phpNowdocs,
  go: goRawStrings,
  rs: rustRawStrings,
};

/** The scripts among the code's raw-string literals, by the name in their `-- @script` header line. */
export function embeddedScripts(clientId: string, code: string): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const literal of LITERALS[findClient(clientId).extension](code)) {
    const name = /^-- @script (\w+)\n/.exec(literal)?.[1];
    if (name) scripts.set(name, literal);
  }
  return scripts;
}

/** Why a check cannot run here (naming the Debian package to install), or false when it can. */
export const missing = (path: string, aptPackage: string): string | false =>
  existsSync(path) ? false : `${path} is missing: apt-get install ${aptPackage}`;

/** Runs a command; on failure, an assertion error with its output. */
export async function check(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 120_000, ...options });
    return stdout + stderr;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

export const writeFiles = (root: string, files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
};

/** A tsconfig.json that type-checks `files` strictly against this repository's ioredis, node-redis and Node types. */
export function strictTsconfig(files: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      skipLibCheck: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      noImplicitReturns: true,
      noImplicitOverride: true,
      exactOptionalPropertyTypes: true,
      typeRoots: [join(process.cwd(), 'node_modules/@types')],
      types: ['node'],
      paths: {
        ioredis: [join(process.cwd(), 'node_modules/ioredis')],
        redis: [join(process.cwd(), 'node_modules/redis')],
      },
    },
    files,
  });
}

/** JavaScript template literals, verbatim (the pack has no backtick, backslash or \${). */
export function jsTemplateLiterals(code: string): string[] {
  return [...code.matchAll(/`([^`]*)`/g)].map(([, content]) => content);
}

/** Python triple-quoted strings, verbatim (the pack has no backslash). */
export function pythonTripleQuoted(code: string): string[] {
  return [...code.matchAll(/"""([\s\S]*?)"""/g)].map(([, content]) => content);
}

/** Ruby squiggly heredocs <<~'LUA': the least indentation of the non-blank lines comes off; each line keeps its newline. */
export function rubySquigglyHeredocs(code: string): string[] {
  return [...code.matchAll(/<<~'(\w+)'[^\n]*\n([\s\S]*?\n)[ \t]*\1\n/g)].map(([, , content]) => {
    const lines = content.slice(0, -1).split('\n');
    const least = Math.min(...lines.filter((line) => line.trim()).map((line) => /^[ \t]*/.exec(line)![0].length));
    return `${lines.map((line) => line.slice(least)).join('\n')}\n`;
  });
}
