// Connection and command failures turned into messages that name the cause and what to do.
// No `vscode`.
import type { TlsSettings } from './saved';

export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

// Node's TLS error codes: what they mean for the user, and whether a CA would fix them.
const TLS_CAUSES: Record<string, { cause: string; hint?: string }> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: { cause: 'the server certificate is self-signed and not trusted' },
  SELF_SIGNED_CERT_IN_CHAIN: { cause: 'the certificate chain ends in a self-signed CA that is not trusted' },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { cause: 'the server certificate is not signed by a trusted CA' },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { cause: 'the CA that signed the server certificate is not trusted' },
  UNABLE_TO_GET_ISSUER_CERT: { cause: 'the CA that signed the server certificate is not trusted' },
  CERT_UNTRUSTED: { cause: 'the server certificate is not trusted' },
  CERT_SIGNATURE_FAILURE: { cause: 'the server certificate has an invalid signature' },
  CERT_HAS_EXPIRED: { cause: 'the server certificate has expired', hint: 'Renew the server certificate.' },
  CERT_NOT_YET_VALID: {
    cause: 'the server certificate is not valid yet',
    hint: "Check this machine's clock and the server's.",
  },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    cause: 'the server certificate does not name this host',
    hint: 'Connect with a host name or IP address listed in the certificate (subjectAltName).',
  },
  ERR_SSL_WRONG_VERSION_NUMBER: {
    cause: 'the server does not speak TLS on this port',
    hint: 'Use redis:// for a server without TLS.',
  },
};

/** What the caller knows beyond the error: the TLS settings used, and whether this was the first connection attempt. */
export interface ErrorContext {
  tls?: TlsSettings;
  /** The first connection attempt: the server never answered on this connection. */
  connecting?: boolean;
}

/** A message for a failed connection or command that names the cause and what to do. */
export function describeConnectionError(error: unknown, target: string, context: ErrorContext = {}): string {
  const err = error as NodeJS.ErrnoException & { message?: string; lastNodeError?: unknown };
  // ioredis Cluster wraps why the seed nodes failed.
  if (err?.lastNodeError) return describeConnectionError(err.lastNodeError, target, context);
  const message = String(err?.message ?? error);
  const code = err?.code ?? '';
  const tls = TLS_CAUSES[code];
  if (tls) return `TLS failure at ${target}: ${tls.cause} (${code}). ${tls.hint ?? verifyHint(context.tls)}`;
  if (/WRONGPASS|invalid username-password/i.test(message))
    return `Wrong username or password for ${target} (WRONGPASS).`;
  if (/NOAUTH/.test(message)) return `${target} requires a password (NOAUTH): edit the connection and set one.`;
  // Redis 7.0 reports a command a script may not run as `ERR The user executing the script can't run this command...`.
  if (/NOPERM|user executing the script can't run/.test(message)) {
    return `Not permitted on ${target} (${message.replace(/^ReplyError: /, '')}): the connection's ACL user lacks this right; the ACLs section of Redis Locksmith's docs/security.md lists the rules to grant.`;
  }
  if (/cluster support disabled/.test(message))
    return `${target} is not a Redis Cluster (cluster support disabled): use redis://host:port/db.`;
  if (/No such master with that name/.test(message)) {
    return `The sentinels at ${target} monitor no master by that name: check the name after '#' (SENTINEL MASTERS lists them).`;
  }
  if (/All sentinels are unreachable/.test(message)) {
    return `No sentinel answered at ${target}: check the addresses and ports (sentinels listen on 26379 by default).`;
  }
  if (code === 'ECONNREFUSED') return `Connection refused at ${target}: is redis-server running and listening there?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Unknown host in ${target} (${code}).`;
  if (code === 'ETIMEDOUT' || /connect ETIMEDOUT/.test(message)) {
    // A plain-text server never answers a TLS handshake: it waits for a command line that never comes.
    const plainServer =
      context.connecting && target.startsWith('rediss://')
        ? ', or a server without TLS on this port (then use redis://)'
        : '';
    return `Timed out connecting to ${target}: unreachable host or a firewall${plainServer}.`;
  }
  if (/ERR_SSL|SSL routines|wrong version number/i.test(message)) return `TLS failure at ${target}: ${message}`;
  if (/Connection is closed|ECONNRESET|EPIPE/i.test(message) || code === 'ECONNRESET' || code === 'EPIPE') {
    // A TLS-only port drops a plain-text client without a word: the likeliest cause on a first connect.
    if (context.connecting && /^rediss?-cluster:/.test(target)) {
      return `No seed node answered at ${target} (${code || message}): is redis-server running there with cluster-enabled yes?`;
    }
    if (context.connecting && target.startsWith('redis://')) {
      return `${target} closed the connection before answering (${code || message}): if the server only accepts TLS on this port, use rediss://.`;
    }
    return `The connection to ${target} closed (${code || message}).`;
  }
  return `${target}: ${message}`;
}

function verifyHint(tls: TlsSettings = {}): string {
  return tls.caFile
    ? `Certificate verification failed with the CA in ${tls.caFile}: edit the connection and give the CA file that signed the server certificate.`
    : "Certificate verification failed with the system's CAs: edit the connection and give the CA file that signed the server certificate.";
}

/** The user actions on a server whose failures are reported to the user. */
export type ServerAction = 'release' | 'extend' | 'load';

const ACTION_FAILED: Record<ServerAction, string> = {
  release: 'Release failed',
  extend: 'Extend failed',
  load: 'Could not load the lock scripts',
};

/** The message shown when Release, Extend or Load Lock Scripts fails, e.g. NOPERM for a browse-only ACL user. */
export function describeActionError(action: ServerAction, error: unknown, target: string): string {
  return `${ACTION_FAILED[action]}: ${describeConnectionError(error, target)}`;
}
