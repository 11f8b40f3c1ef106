// Runs a helper proof program against a Redis URL and watches what it prints.
import { spawn } from 'node:child_process';
import { withClassArchive } from '../../../harness/toolchains';

export interface Running {
  /** Resolves with the program's stdout once it exits 0; rejects with its output otherwise. */
  done: Promise<string>;
  /** Resolves when the program prints `line`. */
  printed(line: string): Promise<void>;
  /** Ends the program with SIGKILL, as a crash would: no cleanup runs. */
  kill(): void;
  /** Sends the program a signal: SIGSTOP pauses it (a GC pause, a stalled VM), SIGCONT resumes it. */
  signal(name: NodeJS.Signals): void;
}

export function start(command: string[], url: string, env: Record<string, string>, args: string[]): Running {
  const run = withClassArchive(command);
  const [file, ...rest] = run.command;
  const child = spawn(file, [...rest, url, ...args], {
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of waiters) if (stdout.split('\n').includes(waiter.line)) waiter.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      run.exited(code === 0);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command.join(' ')} ${args.join(' ')} exited ${code ?? signal}:\n${stdout}${stderr}`));
    });
  });
  return {
    done,
    printed: (line) =>
      Promise.race([
        new Promise<void>((resolve) => waiters.push({ line, resolve })),
        done.then(() => {
          throw new Error(`exited without printing '${line}':\n${stdout}`);
        }),
      ]),
    kill: () => void child.kill('SIGKILL'),
    signal: (name) => void child.kill(name),
  };
}

/**
 * Waits for every program; when one fails, SIGKILLs the others and waits for them to exit before
 * rejecting with its error, so that none of them writes into the next test's keys.
 */
export async function allDone(runs: Running[]): Promise<string[]> {
  try {
    return await Promise.all(runs.map((running) => running.done));
  } catch (error) {
    for (const running of runs) running.kill();
    await Promise.allSettled(runs.map((running) => running.done));
    throw error;
  }
}
