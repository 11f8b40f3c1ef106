// A small TCP proxy for fault tests: sits on a free loopback port in front of a server and can
// cut every connection, refuse (or hold) new ones until restored, and delay traffic.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

const HOST = '127.0.0.1';

/** What cut() does with connections that arrive before restore(). */
export type CutMode =
  /** Accept and destroy at once: the client sees the connection closed (ECONNRESET or EOF). */
  | 'refuse'
  /** Accept and keep them silent; restore() connects them to the target, with what they sent. */
  | 'hold';

interface Pair {
  client: Socket;
  server: Socket;
  timers: Set<NodeJS.Timeout>;
}

export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private readonly held = new Set<Socket>();
  private latencyMs = 0;
  private cutMode: CutMode | undefined;
  private closed = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly targetHost: string,
    readonly targetPort: number,
  ) {}

  /** Listens on a free loopback port and forwards every connection to `targetPort`. */
  static async start(targetPort: number, targetHost = HOST): Promise<TcpProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const proxy = new TcpProxy(server, (server.address() as { port: number }).port, targetHost, targetPort);
    server.on('connection', (socket) => proxy.accept(socket));
    return proxy;
  }

  readonly host = HOST;

  get url(): string {
    return `redis://${HOST}:${this.port}/0`;
  }

  /** Client connections currently forwarded. */
  get connections(): number {
    return this.pairs.size;
  }

  /** Client connections accepted during a 'hold' cut, waiting for restore(). */
  get holding(): number {
    return this.held.size;
  }

  /** Destroys every current connection pair; new connections are refused or held until restore(). */
  cut(mode: CutMode = 'refuse'): void {
    this.cutMode = mode;
    for (const pair of [...this.pairs]) this.drop(pair);
  }

  /** Forwards again; connections held by a 'hold' cut are connected now. */
  restore(): void {
    this.cutMode = undefined;
    for (const socket of [...this.held]) {
      this.held.delete(socket);
      socket.removeAllListeners('close');
      if (!socket.destroyed) this.forward(socket);
    }
  }

  /** Delays every chunk, both ways, by `ms` from when the proxy receives it; order is kept. */
  setLatency(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`latency must be >= 0, got ${ms}`);
    this.latencyMs = ms;
  }

  /** Stops listening and destroys every connection, held ones included. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const pair of [...this.pairs]) this.drop(pair);
    for (const socket of this.held) socket.destroy();
    this.held.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => {}); // a reset by either side is an expected event here
    if (this.closed || this.cutMode === 'refuse') {
      client.destroy();
    } else if (this.cutMode === 'hold') {
      client.pause();
      this.held.add(client);
      client.once('close', () => this.held.delete(client));
    } else {
      this.forward(client);
    }
  }

  private forward(client: Socket): void {
    const server = createConnection({ host: this.targetHost, port: this.targetPort, noDelay: true });
    // As Redis's own sockets: no Nagle delay (up to a delayed ACK's 40 ms) on a second small write.
    client.setNoDelay(true);
    server.on('error', () => {});
    const pair: Pair = { client, server, timers: new Set() };
    this.pairs.add(pair);
    this.relay(pair, client, server);
    this.relay(pair, server, client);
    client.once('close', () => this.drop(pair));
    server.once('close', () => this.drop(pair));
    client.resume();
  }

  /** Copies `from` to `to`, each chunk `latencyMs` after it arrived, in order (one FIFO per direction). */
  private relay(pair: Pair, from: Socket, to: Socket): void {
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const drain = () => {
      if (timer) pair.timers.delete(timer);
      timer = undefined;
      while (queue.length > 0 && queue[0].due <= Date.now()) {
        const { chunk } = queue.shift()!;
        if (!to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) {
        timer = setTimeout(drain, queue[0].due - Date.now());
        pair.timers.add(timer);
      }
    };
    from.on('data', (chunk: Buffer) => {
      // Never before an earlier chunk, even when the latency was lowered in between.
      const due = Math.max(Date.now() + this.latencyMs, queue.at(-1)?.due ?? 0);
      queue.push({ due, chunk });
      if (!timer) drain();
    });
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    for (const timer of pair.timers) clearTimeout(timer);
    pair.timers.clear();
    pair.client.destroy();
    pair.server.destroy();
  }
}

export function startProxy(targetPort: number, targetHost = HOST): Promise<TcpProxy> {
  return TcpProxy.start(targetPort, targetHost);
}
