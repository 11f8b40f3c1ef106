// What a suite run needs to exist before the workbench starts: a TLS redis-server whose
// connection is saved in the user's settings together with the retired window-wide
// `redisLocksmith.tls.caFile` (the activation moves it into the connection), and a workspace
// whose .vscode/settings.json tries to weaken TLS with `allowInsecure` and a CA of its own.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRedis, type RedisServer } from '../../harness/redis';
import { makeTlsFiles, type TlsFiles } from '../../harness/tls';

/** What the suites read from LOCKSMITH_TEST_TLS. */
export interface TlsFixture {
  port: number;
  /** The CA that signed the server certificate. */
  caFile: string;
  /** The id of the saved connection whose TLS settings the activation migrates. */
  migratedId: string;
  /** The workspace settings file that sets the retired TLS settings. */
  workspaceSettings: string;
}

export const TLS_FIXTURE_ENV = 'LOCKSMITH_TEST_TLS';

export interface RunFixtures {
  env: Record<string, string>;
  userSettings: Record<string, unknown>;
  stop(): Promise<void>;
}

export async function prepareRunFixtures(workspace: string): Promise<RunFixtures> {
  const files: TlsFiles = makeTlsFiles();
  let server: RedisServer | undefined;
  try {
    server = await startRedis({ tls: files });
    const settingsDir = join(workspace, '.vscode');
    mkdirSync(settingsDir, { recursive: true });
    // The repository's own CA, which signed nothing the server presents.
    const workspaceCa = join(settingsDir, 'repo-ca.pem');
    copyFileSync(files.otherCaFile, workspaceCa);
    const workspaceSettings = join(settingsDir, 'settings.json');
    writeFileSync(
      workspaceSettings,
      JSON.stringify({ 'redisLocksmith.tls.allowInsecure': true, 'redisLocksmith.tls.caFile': workspaceCa }, null, 2),
    );
    const fixture: TlsFixture = {
      port: server.port,
      caFile: files.caFile,
      migratedId: 'migrated-tls',
      workspaceSettings,
    };
    const running = server;
    return {
      env: { [TLS_FIXTURE_ENV]: JSON.stringify(fixture) },
      userSettings: {
        'redisLocksmith.connections': [
          { id: fixture.migratedId, name: 'migrated TLS', url: `rediss://127.0.0.1:${server.port}/0` },
        ],
        'redisLocksmith.tls.caFile': files.caFile,
      },
      stop: async () => {
        await running.stop();
        files.remove();
      },
    };
  } catch (error) {
    await server?.stop();
    files.remove();
    throw error;
  }
}
