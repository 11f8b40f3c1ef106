// What started the demo: `npm run demo` runs it through npm and a `sh -c` (two of each when one
// script calls another). Killing npm does not reach the demo (a SIGKILL cannot be passed on, and
// sh does not pass SIGTERM on either), so the demo watches them and stops when one goes.
import { execFileSync } from 'node:child_process';

/** An npm process, or the shell npm runs a script in. */
const LAUNCHER = /(^|\/)(npm|npm-cli\.js)(\s|$)|^(\S*\/)?sh -c /;
const WATCH_MS = 1_000;

/** The chain of npm and `sh -c` processes above `pid`, nearest first, from `ps -A -o pid=,ppid=,args=`. */
export function launchersOf(pid: number, table: string): number[] {
  const rows = new Map<number, { parent: number; args: string }>();
  for (const line of table.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (match) rows.set(Number(match[1]), { parent: Number(match[2]), args: match[3] });
  }
  const chain: number[] = [];
  for (let at = rows.get(pid)?.parent; at !== undefined && at > 1; at = rows.get(at)?.parent) {
    const row = rows.get(at);
    if (!row || !LAUNCHER.test(row.args)) break;
    chain.push(at);
  }
  return chain;
}

/** Calls `gone` once when one of the npm and shell processes that started this one has exited. */
export function watchLaunchers(gone: () => void): void {
  const chain = launchersOf(process.pid, execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' }));
  if (!chain.length) return;
  const timer = setInterval(() => {
    const left = chain.every((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    if (left) return;
    clearInterval(timer);
    gone();
  }, WATCH_MS);
  // The watch alone does not keep the demo running.
  timer.unref();
}
