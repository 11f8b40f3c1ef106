// Starts lock-waiter-process.ts: a contender for one lock in a process of its own, which a test
// or a benchmark can SIGKILL while it waits in the lock's queue.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export type LockWaiterEvent = 'waiting' | 'holding' | 'overlap' | 'released' | 'lost';

export interface LockWaiterProcess {
  readonly child: ChildProcess;
  /** Every `<event> <token>` line printed so far. */
  readonly lines: string[];
  /** The token of the next `event` line from now on. */
  next(event: LockWaiterEvent): Promise<string>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

export interface LockWaiterOptions {
  ttlMs: number;
  holdMs: number;
  /** Acquisitions before it exits; 0: until killed. */
  rounds: number;
}

export function spawnLockWaiter(
  port: number,
  lock: string,
  prefix: string,
  options: LockWaiterOptions,
): LockWaiterProcess {
  const script = join(__dirname, 'lock-waiter-process.ts');
  const args = [String(port), lock, prefix, String(options.ttlMs), String(options.holdMs), String(options.rounds)];
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      lines.push(line);
      for (const listener of [...listeners]) listener(line);
    }
  });
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    lines,
    next: (event) =>
      new Promise((resolve, reject) => {
        const listener = (line: string) => {
          const [name, token] = line.split(' ');
          if (name !== event) return;
          listeners.delete(listener);
          resolve(token);
        };
        listeners.add(listener);
        void gone.then(() => {
          if (listeners.delete(listener)) reject(new Error(`the lock waiter exited before '${event}'`));
        });
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await gone;
    },
  };
}
