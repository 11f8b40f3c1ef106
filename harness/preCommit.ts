// The pre-commit framework (https://pre-commit.com), installed from PyPI with pip into a venv of
// its own under ~/.cache/redis-locksmith/pre-commit-<version>/, from the pinned
// test/requirements-pre-commit.txt, once per machine (again when that file changes). Test files
// running side by side install it once, under a lock.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { onceUnderLock } from './once';
import { valkeyCacheRoot } from './valkey';

const REQUIREMENTS = join(__dirname, '..', 'test', 'requirements-pre-commit.txt');
const VENV_HINT = 'sudo apt-get install -y python3-venv';

const requirements = () => readFileSync(REQUIREMENTS, 'utf8');

function version(): string {
  const pinned = /^pre_commit==(\S+)$/m.exec(requirements())?.[1];
  if (!pinned) throw new Error(`${REQUIREMENTS} pins no pre_commit==<version>`);
  return pinned;
}

const which = (command: string) =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, command))
    .find((path) => existsSync(path));

/** A venv at `dir`; Debian's python3 needs python3-venv for it, installed here when we are root with apt-get. */
function makeVenv(dir: string): void {
  const python = which('python3');
  if (!python) throw new Error('python3 is not on PATH: the pre-commit framework runs on it');
  const make = () => execFileSync(python, ['-m', 'venv', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    make();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const aptGet = which('apt-get');
    if (process.getuid?.() !== 0 || !aptGet)
      throw new Error(`python3 cannot make a venv (${String(error)}): install its venv module with: ${VENV_HINT}`);
    execFileSync(aptGet, ['install', '-y', '-qq', 'python3-venv'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    make();
  }
}

/** The path of the pinned `pre-commit` executable, installed on first use. */
export async function ensurePreCommit(): Promise<string> {
  const root = valkeyCacheRoot();
  const dir = join(root, `pre-commit-${version()}`);
  const executable = join(dir, 'bin', 'pre-commit');
  const stamp = join(dir, 'requirements.txt');
  const installed = () => existsSync(executable) && existsSync(stamp) && readFileSync(stamp, 'utf8') === requirements();
  mkdirSync(root, { recursive: true });
  return onceUnderLock(
    `${dir}.lock`,
    () => (installed() ? executable : undefined),
    async () => {
      rmSync(dir, { recursive: true, force: true });
      makeVenv(dir);
      await promisify(execFile)(
        join(dir, 'bin', 'pip'),
        ['install', '--disable-pip-version-check', '--quiet', '--no-input', '-r', REQUIREMENTS],
        { maxBuffer: 16 * 1024 * 1024 },
      );
      writeFileSync(stamp, requirements());
      return executable;
    },
    600_000,
  );
}
