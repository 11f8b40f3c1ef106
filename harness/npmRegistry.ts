// An npm registry on a free loopback port that serves exactly one package, from its tarball: the
// package document (its versions and dist-tags) and the tarball itself, as the public registry
// serves a published package. The package is not published from here, so `npx redis-locksmith@x`
// in a test resolves it through this server (npm_config_registry) instead.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

export interface Registry {
  /** The registry's address, for npm_config_registry. */
  url: string;
  /** What npm asked for, in order (`GET /redis-locksmith`, ...). */
  requests: string[];
  close(): Promise<void>;
}

export async function serveNpmPackage(tarball: string): Promise<Registry> {
  const bytes = readFileSync(tarball);
  const manifest = JSON.parse(
    execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  ) as {
    name: string;
    version: string;
  };
  const file = basename(tarball);
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const base = `http://${request.headers.host}`;
    if (request.url === `/${manifest.name}`) {
      const document = {
        name: manifest.name,
        'dist-tags': { latest: manifest.version },
        versions: {
          [manifest.version]: {
            ...manifest,
            dist: {
              tarball: `${base}/${manifest.name}/-/${file}`,
              shasum: createHash('sha1').update(bytes).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
            },
          },
        },
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    } else if (request.url === `/${manifest.name}/-/${file}`) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    } else {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
