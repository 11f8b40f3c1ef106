// The lint CLI as users run it: the built bundle (server/out/cli.js, made by the same build that
// packages the .vsix, so a test file run alone builds it when the sources are newer) in a child
// process, and copies of the fixture projects to run it in.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureVsix, ROOT } from './vsix';

export const CLI = join(ROOT, 'server', 'out', 'cli.js');
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'cli');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function ensureCli(): Promise<string> {
  await ensureVsix();
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  return CLI;
}

/** Runs `node server/out/cli.js ...args` in `cwd`; never rejects on a non-zero exit. */
export function runCli(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const base = { ...process.env };
  // The report must not depend on the terminal the tests run from.
  delete base.FORCE_COLOR;
  delete base.NO_COLOR;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...base, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        if (typeof code !== 'number') reject(error ?? new Error('no exit code'));
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Folders made by `copyFixture`, removed by `removeCopies`. */
const copies: string[] = [];

/**
 * A copy of test/fixtures/cli/<name> in a temporary folder. Ignore files are kept as `_gitignore`
 * in the repository (a real .gitignore there would hide fixture files from git itself) and
 * renamed on the way.
 */
export function copyFixture(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), `locksmith-cli-${name}-`)), name);
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  const rename = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) rename(path);
      else if (entry.name === '_gitignore') renameSync(path, join(folder, '.gitignore'));
    }
  };
  rename(dir);
  copies.push(join(dir, '..'));
  return dir;
}

export function removeCopies(): void {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes `folder/.vscode/settings.json`. */
export function writeSettings(folder: string, text: string): void {
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), text);
}
