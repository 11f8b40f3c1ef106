// A one-line progress indicator on stderr, only when stderr is a terminal (CI logs and pipes get
// nothing), redrawn at most ten times a second and erased when the run ends.
const REDRAW_MS = 100;

export class Progress {
  private last = 0;
  private shown = false;

  /** `terminal`: stderr when it is a TTY, else undefined (silent). */
  constructor(private readonly terminal: NodeJS.WriteStream | undefined) {}

  found(count: number): void {
    this.draw(() => `redis-locksmith: finding files… ${count.toLocaleString('en')}`);
  }

  checked(done: number, total: number): void {
    this.draw(() => `redis-locksmith: checking ${done.toLocaleString('en')}/${total.toLocaleString('en')} files`);
  }

  clear(): void {
    if (this.shown) this.terminal?.write('\r\x1b[K');
    this.shown = false;
  }

  private draw(line: () => string): void {
    if (!this.terminal) return;
    const now = Date.now();
    if (now - this.last < REDRAW_MS) return;
    this.last = now;
    this.shown = true;
    this.terminal.write(`\r\x1b[K${line().slice(0, Math.max(10, (this.terminal.columns || 80) - 1))}`);
  }
}
