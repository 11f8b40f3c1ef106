// Analysis on every core: worker threads running this same bundle, each with its own parsers
// and pack, fed the texts that mention Redis (the main thread walks, reads and keeps back the
// rest). Each task goes to the worker with the fewest under way. A worker that fails fails the
// run (exit 2), never a file quietly.
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { defaultPackDir, loadPack } from '../../../pack/pack';
import type { LintSettings } from '../catalogue';
import { analysisContext, projectRoots } from './context';
import { analyzeFile, type Analysed } from './lint';
import type { FoundFile } from './walk';

interface Task {
  id: number;
  file: FoundFile;
  text: string;
  settings: LintSettings;
}

type Reply = { id: number; analysed: Analysed } | { id: number; error: string };

/** What a worker needs to build its own analysis context. */
export interface WorkerSetup {
  cwd: string;
}

export class AnalysisPool {
  private readonly workers: { worker: Worker; underWay: number }[] = [];
  private readonly waiting = new Map<number, { resolve(analysed: Analysed): void; reject(error: Error): void }>();
  private nextId = 0;

  /** `script`: the bundle, which serves analyses when it runs as a worker (bin.ts). */
  constructor(size: number, script: string, setup: WorkerSetup) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(script, { workerData: setup, execArgv: process.execArgv });
      const slot = { worker, underWay: 0 };
      worker.on('message', (reply: Reply) => {
        slot.underWay--;
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if ('error' in reply) waiter?.reject(new Error(reply.error));
        else waiter?.resolve(reply.analysed);
      });
      worker.on('error', (error) => this.failAll(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.failAll(new Error(`an analysis worker exited with code ${code}`));
      });
      this.workers.push(slot);
    }
  }

  analyze = (file: FoundFile, text: string, settings: LintSettings): Promise<Analysed> => {
    const slot = this.workers.reduce((best, each) => (each.underWay < best.underWay ? each : best));
    const id = this.nextId++;
    const task: Task = { id, file, text, settings };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      slot.underWay++;
      slot.worker.postMessage(task);
    });
  };

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

/** The worker's side: analyse each task and send the result back. */
export function serveAnalyses(): void {
  const { cwd } = workerData as WorkerSetup;
  const context = analysisContext(loadPack(defaultPackDir(__dirname)), projectRoots(cwd).rootOf);
  parentPort!.on('message', (task: Task) => {
    analyzeFile(task.file, task.text, task.settings, context).then(
      (analysed) => parentPort!.postMessage({ id: task.id, analysed } satisfies Reply),
      (error: unknown) =>
        parentPort!.postMessage({
          id: task.id,
          error: `${task.file.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        } satisfies Reply),
    );
  });
}
