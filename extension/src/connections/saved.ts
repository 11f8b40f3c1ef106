// A saved connection (setting redisLocksmith.connections, application-scoped: a workspace cannot
// add or change one) and how its TLS is verified. The password is never here: it lives in
// SecretStorage under the connection's id. No `vscode`.

/** How a `rediss://` connection verifies the server: part of the connection, never of a workspace. */
export interface TlsSettings {
  /** A PEM file with the CA(s) that signed the server's certificate; the system CAs otherwise. */
  caFile?: string;
  /** Skip certificate verification (self-signed development servers). Off by default. */
  allowInsecure?: boolean;
}

export interface ConnectionConfig {
  id: string;
  name: string;
  /**
   * Without credentials: `redis://host:port/db` (`rediss://` for TLS), `redis-cluster://seed1:port,seed2:port`,
   * or `redis-sentinel://sentinel1:26379,sentinel2:26379/db#masterName` (each with an `s` for TLS).
   */
  url: string;
  username?: string;
  tls?: TlsSettings;
}

/** The connection uses TLS: `rediss://`, `rediss-cluster://` or `rediss-sentinel://`. */
export const usesTls = (config: ConnectionConfig): boolean => /^rediss(-|:)/i.test(config.url);

/** TLS is on and the server's certificate is not verified: the view shows a warning. */
export const verifiesNothing = (config: ConnectionConfig): boolean => usesTls(config) && !!config.tls?.allowInsecure;

/** The saved records that are well-formed; anything else in the setting is ignored. */
export function readSavedConnections(raw: unknown): ConnectionConfig[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry: unknown): ConnectionConfig[] => {
    if (!entry || typeof entry !== 'object') return [];
    const { id, name, url, username, tls } = entry as Record<string, unknown>;
    if (typeof id !== 'string' || typeof url !== 'string') return [];
    const config: ConnectionConfig = { id, name: typeof name === 'string' && name ? name : url, url };
    if (typeof username === 'string' && username) config.username = username;
    const settings = readTls(tls);
    if (settings) config.tls = settings;
    return [config];
  });
}

function readTls(raw: unknown): TlsSettings | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const { caFile, allowInsecure } = raw as Record<string, unknown>;
  const tls: TlsSettings = {};
  if (typeof caFile === 'string' && caFile) tls.caFile = caFile;
  if (allowInsecure === true) tls.allowInsecure = true;
  return Object.keys(tls).length ? tls : undefined;
}

/**
 * The one-time move of the old window-wide settings `redisLocksmith.tls.caFile` and
 * `redisLocksmith.tls.allowInsecure` into each TLS connection. Only the user's own values move;
 * a connection that already has TLS settings keeps them.
 */
export function withUserTls(connections: readonly ConnectionConfig[], user: TlsSettings): ConnectionConfig[] {
  const moved = readTls(user);
  if (!moved) return [...connections];
  return connections.map((config) => (usesTls(config) && !config.tls ? { ...config, tls: moved } : config));
}
