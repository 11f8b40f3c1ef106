// The lock helpers beyond what test/helpers-proof.test.ts runs: golden files for StackExchange.Redis
// (its library needs NuGet, which this machine does not reach) and Predis (test/golden/<client>/
// helper.<ext>, and helper-<part>.<ext> with each part, byte for byte), the embedded Lua of every helper read
// back by each language's literal rules and compared with the pack, and compile checks of every
// helper and its call sites against the real libraries (javac with Jedis, Lettuce and Spring Data Redis, go vet with
// go-redis, redigo and Valkey GLIDE for Go, cargo check with redis-rs, tsc with ioredis, node-redis and Valkey GLIDE), php -l, ruby -c,
// python3 -m py_compile and gofmt. There is no C# compiler here: StackExchange.Redis's helper is
// pinned by its golden files, read back, and parsed with tree-sitter's C# grammar (syntax only).
//
// After changing a helper template or the pack, regenerate the goldens deliberately and read the diff:
//   UPDATE_GOLDEN=1 node --import tsx --test test/helpers-golden.test.ts
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { DEFAULT_HELPER_IMPORT, renderCallSite, type CallSiteOptions } from '../snippets/callsite';
import { CLIENTS } from '../snippets/clients';
import { readHelperHeader } from '../snippets/header';
import { helperKinds, renderHelper, type HelperOptions } from '../snippets/helper';
import { PATTERNS } from '../snippets/patterns';
import { renderCode } from '../snippets/render';
import {
  check,
  embeddedScripts,
  GOLDEN_CLIENTS,
  helperGoldenPath,
  lineDiff,
  onPath,
  strictTsconfig,
  writeFiles,
} from './golden-support';
import { indent } from './proofs/proof';
import { parserFor } from '../server/src/analysis/parsers';
import {
  cargo,
  glideJavaClasspath,
  go,
  javac,
  npmPackages,
  pypiPython,
  writeCargoPackage,
  writeGoModule,
} from '../harness/toolchains';

const pack = loadPack();
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const REGENERATE = 'UPDATE_GOLDEN=1 node --import tsx --test test/helpers-golden.test.ts';
const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-golden-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The options the goldens and compile checks render with: the Java helpers in a package of their own. */
const OPTIONS: Record<string, HelperOptions> = {
  jedis: { package: 'com.example.locks' },
  lettuce: { package: 'com.example.locks' },
  'spring-data-redis': { package: 'com.example.locks' },
  'glide-java': { package: 'com.example.locks' },
};
const helperOf = (client: string, options: HelperOptions = OPTIONS[client] ?? {}) =>
  renderHelper(client, pack, options);

/** Every pattern's call site for the client, values defaulted. */
const callSites = (client: string, options: CallSiteOptions) =>
  PATTERNS.map((pattern) => ({ pattern, ...renderCallSite(client, pattern, {}, options) }));

/** `text` is byte for byte the golden file at `path` (with UPDATE_GOLDEN=1: written there). */
function assertGolden(path: string, text: string, what: string): void {
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return;
  }
  const shown = relative(process.cwd(), path);
  assert.ok(existsSync(path), `${shown} is missing; write it with ${REGENERATE}`);
  const golden = readFileSync(path, 'utf8');
  if (golden !== text) {
    assert.fail(
      `${shown} differs from ${what} (- golden, + rendered):\n${lineDiff(golden, text)}\n` +
        `If the change is intended, regenerate with ${REGENERATE} and review the diff.`,
    );
  }
}

describe('helper golden files: the core, and with each part', () => {
  for (const client of GOLDEN_CLIENTS) {
    test(`${client}: renders exactly test/golden/${client}/helper`, () => {
      assertGolden(helperGoldenPath(client), helperOf(client).text, `renderHelper('${client}')`);
    });
    for (const kind of helperKinds(client)) {
      test(`${client}: with ${kind}, renders exactly test/golden/${client}/helper-${kind}`, () => {
        assertGolden(
          helperGoldenPath(client, kind),
          helperOf(client, { ...OPTIONS[client], kinds: kind }).text,
          `the helper with ${kind}`,
        );
      });
    }
  }
});

describe('embedded Lua read back equals the pack', () => {
  for (const client of CLIENTS) {
    test(`${client.id}: each script literal, decoded by the language's rules, is the pack's script`, () => {
      const flavors: HelperOptions[] = client.extension === 'js' ? [{ flavor: 'ts' }, { flavor: 'cjs' }] : [{}];
      for (const options of flavors) {
        const { text } = helperOf(client.id, options);
        const scripts = embeddedScripts(client.id, text);
        // What the header lists is what is embedded: the plain lock's three scripts at least.
        assert.deepEqual([...scripts.keys()].sort(), [...readHelperHeader(text)!.scripts.keys()].sort());
        for (const name of ['acquire', 'extend', 'release']) assert.ok(scripts.has(name), name);
        for (const [name, literal] of scripts) {
          assert.equal(literal, pack[name as 'acquire'].source, name);
        }
      }
    });
  }
});

/** Skips a check whose tool is missing, naming where it comes from. */
const needs = (tool: string, from: string) => (onPath(tool) ? false : `${tool} is not on PATH: ${from}`);

describe('compile checks', () => {
  test('stackexchange: the helper, the core and with each part, parses as C# (tree-sitter: syntax only, no compiler here)', async () => {
    const parser = await parserFor('c-sharp');
    for (const kinds of ['', ...helperKinds('stackexchange'), helperKinds('stackexchange').join(',')]) {
      const text = helperOf('stackexchange', kinds ? { kinds } : {}).text;
      const root = parser.parse(text)!.rootNode;
      const broken = root.descendantsOfType('ERROR')[0] ?? (root.hasError ? root : undefined);
      assert.equal(
        broken,
        undefined,
        `kinds '${kinds}': a syntax error at line ${(broken?.startPosition.row ?? 0) + 1}`,
      );
    }
  });

  test('jedis, lettuce and spring-data-redis: helper and call sites compile with javac (Java 17) against the real libraries', async () => {
    const clients = {
      // JedisPool is deprecated in Jedis 8 (not in the 4.x to 7 the helper also serves).
      jedis: ['UnifiedJedis jedis', '@SuppressWarnings("deprecation") JedisPool jedis'],
      lettuce: ['RedisCommands<String, String> redis'],
      'spring-data-redis': ['StringRedisTemplate redisTemplate'],
    };
    for (const [client, parameters] of Object.entries(clients)) {
      const dir = join(work, 'java', client);
      const sites = callSites(client, { helperImport: 'com.example.locks' });
      const methods = parameters.flatMap((parameter, n) =>
        sites.map(
          ({ pattern, code }) => `    static void ${pattern}${n}(${parameter}) throws InterruptedException {
${indent(code, '        ')}    }
`,
        ),
      );
      writeFiles(dir, {
        'com/example/locks/Locksmith.java': helperOf(client).text,
        'app/CallSites.java': `package app;
${sites[0].imports.join('\n')}
import io.lettuce.core.api.sync.RedisCommands;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.UnifiedJedis;

class CallSites {
${methods.join('\n')}}
`,
      });
      // -try: the guard call site does not name its lease, as try-with-resources allows.
      await javac(
        dir,
        ['com/example/locks/Locksmith.java', 'app/CallSites.java'],
        ['-Xlint:all,-serial,-try', '-Werror'],
      );
    }
  });

  test('glide-java: helper and call sites compile with javac (Java 17, -Xlint:all -Werror) against the pinned GLIDE for Java', async () => {
    const dir = join(work, 'java', 'glide-java');
    const sites = callSites('glide-java', { helperImport: 'com.example.locks' });
    const methods = ['GlideClient client', 'GlideClusterClient client'].flatMap((parameter, n) =>
      sites.map(
        ({ pattern, code }) => `    static void ${pattern}${n}(${parameter}) throws InterruptedException {
${indent(code, '        ')}    }
`,
      ),
    );
    writeFiles(dir, {
      'com/example/locks/Locksmith.java': helperOf('glide-java').text,
      'app/CallSites.java': `package app;
${sites[0].imports.join('\n')}
import glide.api.GlideClient;
import glide.api.GlideClusterClient;

class CallSites {
${methods.join('\n')}}
`,
    });
    // -try: the guard call site does not name its lease, as try-with-resources allows. -path: GLIDE's
    // jar names commons-lang3 in its manifest's Class-Path as a file beside it, where Maven keeps none.
    await javac(
      dir,
      ['com/example/locks/Locksmith.java', 'app/CallSites.java'],
      ['-Xlint:all,-serial,-try,-path', '-Werror'],
      await glideJavaClasspath(),
    );
  });

  test('redigo and go-redis: helper and call sites pass go vet (modules) and are gofmt-clean', async () => {
    const dir = join(work, 'go');
    writeGoModule(dir);
    const clientTypes = {
      redigo: ['github.com/gomodule/redigo/redis', 'pool *redis.Pool'],
      'go-redis': ['github.com/redis/go-redis/v9', 'rdb *redis.Client'],
    };
    for (const [client, [library, parameter]] of Object.entries(clientTypes)) {
      const helperImport = `locksmithproof/${client}/locksmith`;
      const sites = callSites(client, { helperImport });
      writeFiles(dir, {
        [`${client}/locksmith/locksmith.go`]: helperOf(client).text,
        [`${client}/callsites.go`]: `package callsites

import (
	"context"
	"time"

	"${library}"
)

${sites[0].imports.join('\n')}

${sites
  .map(
    ({ pattern, code }) =>
      `func ${pattern}(ctx context.Context, ${parameter}) error {\n${indent(code, '\t')}\treturn nil\n}\n`,
  )
  .join('\n')}`,
      });
      for (const path of [`${client}/locksmith/locksmith.go`, `${client}/callsites.go`]) {
        assert.equal(await check('gofmt', ['-l', join(dir, path)]), '', `gofmt would change ${path}`);
      }
    }
    await go(['vet', './...'], dir);
  });

  test('redis-rs: helper and call sites pass cargo check (warnings denied) against redis-rs', async () => {
    const sites = callSites('redis-rs', { helperImport: 'crate::locksmith' });
    const dir = join(work, 'rust');
    writeCargoPackage(dir, {
      'locksmith.rs': helperOf('redis-rs').text,
      'main.rs': 'fn main() {}\n',
      'lib.rs': `#![deny(warnings)]

pub mod locksmith;

${sites
  .map(
    ({ pattern, imports, code }) => `pub mod ${pattern} {
${indent(imports.join('\n'), '    ')}

    pub fn locked(client: redis::Client, mut con: redis::Connection) -> Result<(), Box<dyn std::error::Error>> {
${indent(code, '        ')}        let _ = &client;
        Ok(())
    }
}
`,
  )
  .join('\n')}`,
    });
    await cargo(dir, 'check');
  });

  test('ioredis and node-redis: the TypeScript helper and call sites type-check (strict) against the real types', async () => {
    for (const client of ['ioredis', 'node-redis']) {
      const dir = join(work, 'ts', client);
      // Bodies that use what each pattern hands them, as the user's code would.
      const uses = { guard: 'await redis.ping();', renew: 'signal.throwIfAborted();', fenced: 'console.log(fence);' };
      const sites = PATTERNS.map((pattern) => ({
        pattern,
        ...renderCallSite(client, pattern, { body: uses[pattern] }, { helperImport: './locksmith.js' }),
      }));
      const library =
        client === 'ioredis' ? "import { Redis } from 'ioredis';" : "import { createClient } from 'redis';";
      const redis = client === 'ioredis' ? 'new Redis()' : 'createClient()';
      writeFiles(dir, {
        'locksmith.ts': helperOf(client, { flavor: 'ts' }).text,
        'callsites.ts': `${library}
${sites[0].imports.join('\n')}

const redis = ${redis};
${sites.map(({ pattern, code }) => `export async function ${pattern}(): Promise<void> {\n${indent(code, '  ')}}\n`).join('\n')}`,
        'tsconfig.json': strictTsconfig(['locksmith.ts', 'callsites.ts']),
      });
      await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir]);
      for (const flavor of ['esm', 'cjs']) {
        const path = join(dir, `locksmith.${flavor === 'esm' ? 'mjs' : 'cjs'}`);
        writeFileSync(path, helperOf(client, { flavor }).text);
        await check(process.execPath, ['--check', path]);
      }
    }
  });

  test('glide-node: the TypeScript helper (core and every kind) and call sites type-check (strict) against the pinned GLIDE', async () => {
    const modules = await npmPackages('glide');
    const dir = join(work, 'ts', 'glide-node');
    const uses = { guard: 'await client.ping();', renew: 'signal.throwIfAborted();', fenced: 'console.log(fence);' };
    const sites = PATTERNS.map((pattern) => ({
      pattern,
      ...renderCallSite('glide-node', pattern, { body: uses[pattern] }, { helperImport: './locksmith.js' }),
    }));
    const tsconfig = JSON.parse(strictTsconfig(['locksmith.ts', 'kinds.ts', 'callsites.ts'])) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    tsconfig.compilerOptions.paths['@valkey/valkey-glide'] = [join(modules, '@valkey', 'valkey-glide')];
    writeFiles(dir, {
      'locksmith.ts': helperOf('glide-node', { flavor: 'ts' }).text,
      'kinds.ts': helperOf('glide-node', { flavor: 'ts', kinds: helperKinds('glide-node').join(',') }).text,
      'callsites.ts': `import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
${sites[0].imports.join('\n')}
import { enableWakeups } from './kinds.js'; // the wakeups part's

export async function sites(standalone: GlideClient, cluster: GlideClusterClient): Promise<void> {
  enableWakeups(cluster, { addresses: [{ host: '127.0.0.1', port: 7000 }] });
  for (const client of [standalone, cluster]) {
${sites.map(({ code }) => indent(code, '    ')).join('')}  }
}
`,
      'tsconfig.json': JSON.stringify(tsconfig),
    });
    await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir]);
    for (const flavor of ['esm', 'cjs']) {
      const path = join(dir, `locksmith.${flavor === 'esm' ? 'mjs' : 'cjs'}`);
      writeFileSync(path, helperOf('glide-node', { flavor }).text);
      await check(process.execPath, ['--check', path]);
    }
  });

  test('glide-go: helper and call sites pass go vet against the pinned GLIDE for Go (both clients) and are gofmt-clean', async () => {
    const dir = join(work, 'glide-go');
    writeGoModule(dir);
    const sites = callSites('glide-go', { helperImport: 'locksmithproof/locksmith' });
    writeFiles(dir, {
      // With its wakeups part: EnableWakeups is called below.
      'locksmith/locksmith.go': helperOf('glide-go', { kinds: 'wakeups' }).text,
      'callsites.go': `package callsites

import (
	"context"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
)

${sites[0].imports.join('\n')}

${sites
  .map(
    ({ pattern, code }) =>
      `func ${pattern}(ctx context.Context, client locksmith.Client) error {\n${indent(code, '\t')}\treturn nil\n}\n`,
  )
  .join('\n')}
func clients(ctx context.Context, standalone *glide.Client, cluster *glide.ClusterClient) error {
	locksmith.EnableWakeups(cluster, config.NewClusterClientConfiguration())
	for _, client := range []locksmith.Client{standalone, cluster} {
		if err := guard(ctx, client); err != nil {
			return err
		}
	}
	return nil
}
`,
    });
    for (const path of ['locksmith/locksmith.go', 'callsites.go']) {
      assert.equal(await check('gofmt', ['-l', join(dir, path)]), '', `gofmt would change ${path}`);
    }
    await go(['vet', './...'], dir);
  });

  test(
    'phpredis and predis: helper (core, and with every part) and call sites pass php -l',
    { skip: needs('php', 'apt-get install php-cli') },
    async () => {
      for (const client of ['phpredis', 'predis']) {
        const helper = join(work, `${client}-Locksmith.php`);
        writeFileSync(helper, helperOf(client).text);
        await check(onPath('php')!, ['-l', helper]);
        writeFileSync(helper, helperOf(client, { kinds: helperKinds(client).join(',') }).text);
        await check(onPath('php')!, ['-l', helper]);
        const sites = join(work, `${client}-callsites.php`);
        writeFileSync(
          sites,
          `<?php\n${callSites(client, { helperImport: 'Locksmith.php' })
            .map(({ imports, code }) => `${imports.join('\n')}\n${code}`)
            .join('\n')}`,
        );
        await check(onPath('php')!, ['-l', sites]);
      }
    },
  );

  test(
    'redis-rb: helper (core, and with every part) and call sites pass ruby -c',
    { skip: needs('ruby', 'apt-get install ruby') },
    async () => {
      const helper = join(work, 'locksmith.rb');
      for (const kinds of [undefined, helperKinds('redis-rb').join(',')]) {
        writeFileSync(helper, helperOf('redis-rb', { kinds }).text);
        assert.match(await check(onPath('ruby')!, ['-wc', helper]), /^Syntax OK$/m);
      }
      const sites = join(work, 'callsites.rb');
      writeFileSync(
        sites,
        callSites('redis-rb', { helperImport: 'locksmith' })
          .map(({ imports, code }) => `${imports.join('\n')}\n${code}`)
          .join('\n'),
      );
      assert.match(await check(onPath('ruby')!, ['-wc', sites]), /^Syntax OK$/m);
    },
  );

  test(
    'redis-py: helper and call sites compile with python3',
    { skip: needs('python3', 'apt-get install python3') },
    async () => {
      const dir = join(work, 'python');
      const sites = callSites('redis-py', { helperImport: DEFAULT_HELPER_IMPORT['redis-py'] });
      writeFiles(dir, {
        'locksmith.py': helperOf('redis-py').text,
        'callsites.py': sites
          .map(
            ({ pattern, imports, code }) => `def ${pattern}(r):\n${indent(`${imports.join('\n')}\n${code}`, '    ')}`,
          )
          .join('\n\n'),
      });
      await check(onPath('python3')!, ['-m', 'py_compile', join(dir, 'locksmith.py'), join(dir, 'callsites.py')]);
    },
  );

  test('glide-python: helper (core and every kind), call sites and inline snippets compile and import against the pinned GLIDE', async () => {
    const dir = join(work, 'glide-python');
    const sites = callSites('glide-python', { helperImport: DEFAULT_HELPER_IMPORT['glide-python'] });
    const inline = PATTERNS.map((pattern) => ({ pattern, code: renderCode('glide-python', pattern, pack, {}) }));
    // GLIDE's API is asyncio: each call site and snippet is the body of a coroutine.
    const coroutine = (name: string, code: string) => `async def ${name}(client):\n${indent(code, '    ')}`;
    writeFiles(dir, {
      'locksmith.py': helperOf('glide-python').text,
      'kinds.py': helperOf('glide-python', { kinds: helperKinds('glide-python').join(',') }).text,
      'callsites.py': [
        ...sites.map(({ pattern, imports, code }) => coroutine(pattern, `${imports.join('\n')}\n${code}`)),
        ...inline.map(({ pattern, code }) => coroutine(`inline_${pattern}`, code)),
      ].join('\n\n'),
    });
    const python = await pypiPython('glide/requirements.txt');
    const files = ['locksmith.py', 'kinds.py', 'callsites.py'];
    await check(python, ['-m', 'py_compile', ...files.map((file) => join(dir, file))]);
    // Importing them resolves every name the helper and the snippets take from GLIDE.
    await check(python, ['-c', 'import locksmith, kinds, callsites'], { cwd: dir });
  });
});
