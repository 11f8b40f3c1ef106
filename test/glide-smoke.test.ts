// Valkey GLIDE (the Valkey project's client: a Rust core with Node, Python, Java and Go bindings),
// ahead of its helpers: each binding installs here from its registry (pinned in test/proofs/glide
// and test/proofs/go; cached under ~/.cache/redis-locksmith/), talks to a real Redis 7.0 and
// Valkey 9 (the pack's acquire script, the way a helper runs it, then a GET), and receives
// a message on a sharded channel (SSUBSCRIBE) from a real 3-master Cluster of each: GLIDE has
// sharded pub/sub in cluster mode only.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type Redis from 'ioredis';
import { pack, waitFor } from './helpers';
import { SERVER_KINDS, startCluster, startRedis, type RedisCluster, type RedisServer } from '../harness/redis';
import {
  glideJavaClasspath,
  go,
  javac,
  JVM_FLAGS,
  npmPackages,
  PINNED,
  pypiPython,
  writeGoModule,
} from '../harness/toolchains';
import { start } from './proofs/helpers/run';

const work = mkdtempSync(join(tmpdir(), 'locksmith-glide-'));
after(() => rmSync(work, { recursive: true, force: true }));
const SMOKE = join(PINNED, 'glide');

interface Binding {
  name: string;
  /** Installs the binding and builds its smoke program; the command that runs it (mode and port follow). */
  prepare(dir: string): Promise<{ command: string[]; env?: Record<string, string> }>;
}

const BINDINGS: Binding[] = [
  {
    name: 'Node: npm @valkey/valkey-glide 2.5.2',
    async prepare() {
      const modules = await npmPackages('glide');
      return {
        command: [process.execPath, join(SMOKE, 'smoke.js')],
        env: { GLIDE_PATH: join(modules, '@valkey', 'valkey-glide') },
      };
    },
  },
  {
    name: 'Python: PyPI valkey-glide 2.5.3',
    prepare: async () => ({ command: [await pypiPython('glide/requirements.txt'), join(SMOKE, 'smoke.py')] }),
  },
  {
    name: 'Java: Maven io.valkey:valkey-glide 2.1.0',
    async prepare(dir) {
      const jars = await glideJavaClasspath();
      copyFileSync(join(SMOKE, 'Smoke.java'), join(dir, 'Smoke.java'));
      const classpath = await javac(dir, ['Smoke.java'], [], jars);
      return { command: ['java', ...JVM_FLAGS, '-cp', classpath, 'Smoke'] };
    },
  },
  {
    name: 'Go: module github.com/valkey-io/valkey-glide/go/v2 v2.5.3',
    async prepare(dir) {
      writeGoModule(dir, 'glidesmoke');
      copyFileSync(join(SMOKE, 'smoke.go'), join(dir, 'main.go'));
      await go(['build', '-o', join(dir, 'smoke'), '.'], dir);
      return { command: [join(dir, 'smoke')] };
    },
  },
];

const prepared = new Map<string, ReturnType<Binding['prepare']>>();
const prepare = (binding: Binding, index: number) => {
  let program = prepared.get(binding.name);
  if (!program) {
    const dir = join(work, String(index));
    mkdirSync(dir, { recursive: true });
    program = binding.prepare(dir);
    prepared.set(binding.name, program);
  }
  return program;
};

for (const server of SERVER_KINDS) {
  describe(`GLIDE against ${server}`, () => {
    let standalone: RedisServer;
    let cluster: RedisCluster;
    before(async () => {
      [standalone, cluster] = await Promise.all([startRedis({ server }), startCluster({ server })]);
    });
    after(async () => {
      await Promise.all([standalone?.stop(), cluster?.stop()]);
    });

    /** Clients subscribed to `channel` on the Cluster's masters. */
    async function subscribers(channel: string): Promise<number> {
      let total = 0;
      for (const node of cluster.masters) {
        const client = node.client();
        const [, count] = (await client.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
        client.disconnect();
        total += count;
      }
      return total;
    }

    /** SPUBLISH on the master that owns the channel's slot (the others answer MOVED). */
    async function spublish(channel: string, payload: string): Promise<number> {
      let receivers = 0;
      for (const node of cluster.masters) {
        const client: Redis = node.client();
        receivers += Number(await client.call('SPUBLISH', channel, payload).catch(() => 0));
        client.disconnect();
      }
      return receivers;
    }

    BINDINGS.forEach((binding, index) => {
      describe(binding.name, () => {
        test(`installs, and runs the pack's acquire script on ${server}`, async () => {
          const { command, env } = await prepare(binding, index);
          // The Lua text lives only in scripts-lua/: the programs take it from the pack.
          const script = { GLIDE_SCRIPT: pack.acquire.source };
          const output = await start(command, 'standalone', { ...env, ...script }, [String(standalone.port)]).done;
          assert.match(output, /^ok 1 smoke$/m, 'acquired with token "smoke"');
        });

        test(`receives a sharded message (SSUBSCRIBE) on a ${server} Cluster`, async () => {
          const { command, env } = await prepare(binding, index);
          const channel = `glide:${index}`;
          const seed = String(cluster.masters[0].port);
          const subscriber = start(command, 'sharded', env ?? {}, [seed, channel]);
          await subscriber.printed('subscribed');
          await waitFor('the sharded subscription', async () => (await subscribers(channel)) >= 1);
          assert.equal(await spublish(channel, 'woken'), 1);
          assert.match(await subscriber.done, /^message woken$/m);
        });
      });
    });
  });
}
