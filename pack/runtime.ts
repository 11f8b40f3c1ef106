// Calls the pack from Node through ioredis: EVALSHA, and on NOSCRIPT (after SCRIPT FLUSH,
// a restart or a failover) EVAL, which runs the script and caches it on that very node.
// That is SCRIPT LOAD + retry in one round trip, routed by key, so it is also right in Cluster.
import type { Cluster, Redis } from 'ioredis';
import { loadPack, SCRIPT_NAMES, type Pack, type ScriptName } from './pack';

export type RedisClient = Redis | Cluster;
/** Keys and tokens are binary-safe: pass a Buffer for bytes that are not UTF-8. */
export type RedisString = string | Buffer;

export class LockScripts {
  constructor(
    private readonly redis: RedisClient,
    readonly pack: Pack = loadPack(),
  ) {}

  /**
   * Takes `lock` for `token` with a lease of `ttlMs`, or refreshes it when `token` holds it.
   * Returns 0 when another owner holds it; otherwise 1, or with `fence` the fencing token.
   */
  async acquire(lock: RedisString, token: RedisString, ttlMs: number, fence?: RedisString): Promise<number> {
    const keys = fence === undefined ? [lock] : [lock, fence];
    return (await this.run('acquire', keys, [token, ttlMs])) as number;
  }

  /** Compare-and-delete. True when `token` held `lock` and it is now deleted. */
  async release(lock: RedisString, token: RedisString): Promise<boolean> {
    return (await this.run('release', [lock], [token])) === 1;
  }

  /** Compare-and-extend. True when `token` holds `lock` and its TTL is now `ttlMs`. */
  async extend(lock: RedisString, token: RedisString, ttlMs: number): Promise<boolean> {
    return (await this.run('extend', [lock], [token, ttlMs])) === 1;
  }

  async run(name: ScriptName, keys: RedisString[], args: (RedisString | number)[]): Promise<unknown> {
    const script = this.pack[name];
    try {
      return await this.redis.evalsha(script.sha1, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await this.redis.eval(script.source, keys.length, ...keys, ...args);
    }
  }

  /** SCRIPT LOAD every script on every master; returns the SHA1s Redis reported. */
  async load(): Promise<Record<ScriptName, string>> {
    const sources = SCRIPT_NAMES.map((name) => this.pack[name].source);
    const perNode = await Promise.all(
      this.masters().map((node) =>
        Promise.all(sources.map((source) => node.script('LOAD', source) as Promise<string>)),
      ),
    );
    return Object.fromEntries(SCRIPT_NAMES.map((name, i) => [name, perNode[0][i]])) as Record<ScriptName, string>;
  }

  /** SCRIPT EXISTS for every script: true only where every master has it cached. */
  async loaded(): Promise<Record<ScriptName, boolean>> {
    const perNode = [...(await this.loadedByMaster()).values()];
    return Object.fromEntries(SCRIPT_NAMES.map((name) => [name, perNode.every((flags) => flags[name])])) as Record<
      ScriptName,
      boolean
    >;
  }

  /** SCRIPT EXISTS for every script on each master, by `host:port`. */
  async loadedByMaster(): Promise<Map<string, Record<ScriptName, boolean>>> {
    const shas = SCRIPT_NAMES.map((name) => this.pack[name].sha1);
    const masters = this.masters();
    const perNode = await Promise.all(masters.map((node) => node.script('EXISTS', ...shas) as Promise<number[]>));
    return new Map(
      masters.map((node, n) => [
        `${node.options.host}:${node.options.port}`,
        Object.fromEntries(SCRIPT_NAMES.map((name, i) => [name, perNode[n][i] === 1])) as Record<ScriptName, boolean>,
      ]),
    );
  }

  /**
   * After a failover a promoted replica lacks the scripts (Redis does not replicate its script
   * cache): loads the pack on the masters missing any of it, when another master has all of it.
   * Returns the masters loaded. A pack the user never loaded is left unloaded.
   */
  async loadWhereMissing(): Promise<string[]> {
    const byMaster = await this.loadedByMaster();
    const complete = (flags: Record<ScriptName, boolean>) => SCRIPT_NAMES.every((name) => flags[name]);
    if (![...byMaster.values()].some(complete)) return [];
    const missing = this.masters().filter(
      (node) => !complete(byMaster.get(`${node.options.host}:${node.options.port}`)!),
    );
    await Promise.all(
      missing.flatMap((node) => SCRIPT_NAMES.map((name) => node.script('LOAD', this.pack[name].source))),
    );
    return missing.map((node) => `${node.options.host}:${node.options.port}`);
  }

  private masters(): Redis[] {
    return this.redis.isCluster ? (this.redis as Cluster).nodes('master') : [this.redis as Redis];
  }
}
