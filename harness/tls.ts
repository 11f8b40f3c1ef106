// Throwaway TLS material for tests, made with openssl in a temp dir: a CA, a server certificate
// it signed for 127.0.0.1 (and localhost), and an unrelated second CA that signed nothing here.
// Nothing is reused between runs; `remove()` deletes it all.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsFiles {
  /** PEM of the CA that signed the server certificate. */
  caFile: string;
  /** PEM server certificate for IP 127.0.0.1 and DNS localhost, signed by `caFile`. */
  certFile: string;
  keyFile: string;
  /** PEM of another CA that did not sign the server certificate: a "wrong CA". */
  otherCaFile: string;
  dir: string;
  /** Deletes the temp dir and every key and certificate in it. */
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: 'pipe' });
  } catch (error) {
    const err = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (err.code === 'ENOENT')
      throw new Error(
        'openssl is not on PATH; the TLS tests make their certificates with it. Install it with: sudo apt-get install -y openssl',
      );
    throw new Error(`openssl ${args.join(' ')} failed:\n${err.stderr?.toString() ?? err.message}`);
  }
}

/** A self-signed CA certificate and its key: `<name>.pem`, `<name>.key`. */
function makeCa(dir: string, name: string, subject: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      subject,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

/** Makes a CA, a server certificate it signed for 127.0.0.1, and an unrelated CA. */
export function makeTlsFiles(): TlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'locksmith-tls-'));
  try {
    makeCa(dir, 'ca', '/CN=Locksmith test CA');
    makeCa(dir, 'other-ca', '/CN=Unrelated test CA');
    openssl(
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'server.key',
        '-out',
        'server.csr',
        '-subj',
        '/CN=127.0.0.1',
      ],
      dir,
    );
    writeFileSync(
      join(dir, 'server.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        'authorityKeyIdentifier=keyid',
        'subjectKeyIdentifier=hash',
        '',
      ].join('\n'),
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'server.pem',
        '-days',
        '2',
        '-extfile',
        'server.ext',
      ],
      dir,
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server.key'),
    otherCaFile: join(dir, 'other-ca.pem'),
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
