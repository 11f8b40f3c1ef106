// The `redis-locksmith` command (package.json `bin`), bundled to server/out/cli.js; the same
// file runs the analysis workers.
import process from 'node:process';
import { isMainThread } from 'node:worker_threads';
import { run } from './main';
import { serveAnalyses } from './pool';

if (isMainThread) {
  const env = process.env;
  const colours = env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : !!process.stdout.isTTY && env.NO_COLOR === undefined;
  // A reader that goes away (`| head`) ends the output, not the run with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  void run(process.argv.slice(2), {
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    ...(process.stderr.isTTY && { terminal: process.stderr }),
    colours,
    workerScript: __filename,
  }).then((code) => {
    // Not process.exit(): stdout may still be flushing into a pipe.
    process.exitCode = code;
  });
} else {
  serveAnalyses();
}
