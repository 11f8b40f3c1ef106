// Golden files for the snippets of StackExchange.Redis (its library needs NuGet, which this
// machine does not reach) and Predis: renderCode(client, pattern) must equal
// test/golden/<client>/<pattern>.<ext> byte for byte, so any change to a template or to the pack
// shows up as a diff someone reviewed. Every client's embedded Lua literals, read back by its
// language's raw-string rules, must be the pack's scripts. The Java, Go and Rust snippets compile
// with the header's imports against the real libraries (javac, go vet, cargo check; the proofs
// also run them); Predis runs against a throwaway Redis. A check whose tool is missing is skipped
// with the apt package to install.
//
// After changing a template or the pack, regenerate the goldens deliberately and read the diff:
//   UPDATE_GOLDEN=1 node --import tsx --test test/snippets-golden.test.ts
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadPack, type ScriptName } from '../pack/pack';
import { findClient, renderCode } from '../snippets/render';
import { helperKinds } from '../snippets/helper';
import { PATTERNS, type PatternId } from '../snippets/patterns';
import {
  check,
  embeddedScripts,
  GOLDEN_CLIENTS,
  GOLDEN_DIR,
  helperGoldenPath,
  lineDiff,
  missing,
  writeFiles,
} from './golden-support';
import { useRedis } from './helpers';
import { cargo, go, javac, writeCargoPackage, writeGoModule } from '../harness/toolchains';
import { indent } from './proofs/proof';

const pack = loadPack();
const SCRIPTS_USED: Record<PatternId, ScriptName[]> = {
  guard: ['acquire', 'release'],
  renew: ['acquire', 'extend', 'release'],
  fenced: ['acquire', 'release'],
};
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const REGENERATE = 'UPDATE_GOLDEN=1 node --import tsx --test test/snippets-golden.test.ts';

const goldenPath = (client: string, pattern: PatternId) =>
  join(GOLDEN_DIR, client, `${pattern}.${findClient(client).extension}`);

describe('golden files', () => {
  for (const client of GOLDEN_CLIENTS) {
    for (const pattern of PATTERNS) {
      test(`${client} ${pattern}: renders exactly its golden file`, () => {
        const code = renderCode(client, pattern, pack);
        const path = goldenPath(client, pattern);
        if (UPDATE) {
          mkdirSync(join(GOLDEN_DIR, client), { recursive: true });
          writeFileSync(path, code);
          return;
        }
        const shown = relative(process.cwd(), path);
        assert.ok(existsSync(path), `${shown} is missing; write it with ${REGENERATE}`);
        const golden = readFileSync(path, 'utf8');
        if (golden !== code) {
          assert.fail(
            `${shown} differs from renderCode('${client}', '${pattern}') (- golden, + rendered):\n` +
              `${lineDiff(golden, code)}\nIf the change is intended, regenerate with ${REGENERATE} and review the diff.`,
          );
        }
      });
    }
  }

  test('every golden file belongs to one of those clients and patterns, or is one of their helpers', () => {
    const expected = GOLDEN_CLIENTS.flatMap((client) => [
      ...PATTERNS.map((pattern) => goldenPath(client, pattern)),
      helperGoldenPath(client),
      ...helperKinds(client).map((part) => helperGoldenPath(client, part)),
    ]);
    const found = readdirSync(GOLDEN_DIR, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
    assert.deepEqual(
      found.filter((path) => !expected.includes(path)),
      [],
    );
  });
});

/** The snippets whose scripts are read back here: these clients' literal rules are in golden-support.ts. */
const READ_BACK = [...GOLDEN_CLIENTS, 'jedis', 'lettuce', 'spring-data-redis', 'go-redis', 'redis-rs'];

describe('embedded Lua equals the pack', () => {
  for (const client of READ_BACK) {
    for (const pattern of PATTERNS) {
      test(`${client} ${pattern}: each raw-string literal holds a pack script exactly`, () => {
        const scripts = embeddedScripts(client, renderCode(client, pattern, pack));
        assert.deepEqual([...scripts.keys()].sort(), [...SCRIPTS_USED[pattern]].sort());
        for (const [name, literal] of scripts) {
          assert.equal(literal.replace(/\n$/, ''), pack[name as ScriptName].source.replace(/\n$/, ''), name);
        }
      });
    }
  }

  // VS Code indents every line of a snippet inserted in an indented block: text blocks, raw string
  // literals and nowdocs strip that indentation again, so the script stays byte for byte the pack's.
  for (const client of READ_BACK.filter((id) => ['java', 'cs', 'php'].includes(findClient(id).extension))) {
    test(`${client}: the scripts survive the snippet being inserted indented`, () => {
      const scripts = embeddedScripts(client, indent(renderCode(client, 'renew', pack), '        '));
      assert.deepEqual([...scripts.keys()].sort(), [...SCRIPTS_USED.renew].sort());
      for (const [name, literal] of scripts) {
        assert.equal(literal.replace(/\n$/, ''), pack[name as ScriptName].source.replace(/\n$/, ''), name);
      }
    });
  }
});

// Compile checks against the real libraries (test/proofs pins them): every warning fails them. There
// is no C# compiler here.
const work = mkdtempSync(join(tmpdir(), 'locksmith-golden-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The list after "Imports:" in a snippet's header comment, so the check also proves that list. */
function headerImports(code: string): string[] {
  const header = /^(?:\/\/.*\n)+/
    .exec(code)![0]
    .replace(/^\/\/ ?/gm, '')
    .replace(/\n/g, ' ');
  return /Imports: (.*?)\.(?:\s|$)/.exec(header)![1].split(/,\s*/);
}

/** The client variable each Java snippet assumes, declared as the wrapping method's parameter. */
const JAVA_CLIENT: Record<string, { imports: string[]; parameter: string }> = {
  // JedisPool is deprecated in Jedis 8: the snippet does not name it, this wrapper does.
  jedis: { imports: ['redis.clients.jedis.JedisPool'], parameter: '@SuppressWarnings("deprecation") JedisPool pool' },
  lettuce: { imports: ['io.lettuce.core.api.sync.RedisCommands'], parameter: 'RedisCommands<String, String> redis' },
  'spring-data-redis': {
    imports: ['org.springframework.data.redis.core.StringRedisTemplate'],
    parameter: 'StringRedisTemplate redisTemplate',
  },
};

// Predis runs the snippets like test/proofs/: two processes around a non-atomic counter (with a
// SCRIPT FLUSH after every round, so the NOSCRIPT fallback runs too), a body that renews past 3x
// the TTL, and fencing tokens that strictly increase.
const PREDIS = '/usr/share/php/Predis/autoload.php';
const PREDIS_BODIES: Record<PatternId, string> = {
  guard: `if ($client->incr('proof:occupancy') !== 1) {
    throw new RuntimeException('two holders at once');
}
$client->set('proof:counter', (int) $client->get('proof:counter') + 1);
$client->decr('proof:occupancy');`,
  renew: `for ($step = 0; $step < 10; $step++) {
    usleep(100_000);
    if (!$lockRenew()) {
        throw new RuntimeException('renewal reported a loss');
    }
    if ($client->get($lockKey) !== $lockToken) {
        throw new RuntimeException('lease lost while renewing');
    }
}
$client->incr('proof:renewed');`,
  fenced: `$client->rpush('proof:tokens', [$fencingToken]);`,
};
const PREDIS_AFTER: Record<PatternId, string> = {
  guard: `$client->script('FLUSH');`,
  renew: `$client->set($lockKey, $lockToken);
usleep(3 * $lockTtlMs * 1000);
if ($client->pttl($lockKey) !== -1) {
    throw new RuntimeException('still renewing after release');
}
$client->del([$lockKey]);`,
  fenced: '',
};

function predisProgram(pattern: PatternId, ttl: number): string {
  const { quote } = findClient('predis');
  const snippet = renderCode('predis', pattern, pack, {
    key: quote('proof:lock'),
    fence: quote('proof:fence'),
    ttl: String(ttl),
    body: PREDIS_BODIES[pattern],
  });
  const path = join(work, `predis-${pattern}.php`);
  writeFileSync(
    path,
    `<?php
require '${PREDIS}';
$client = new Predis\\Client($argv[1]);
for ($round = 0; $round < (int) $argv[2]; $round++) {
${indent(snippet, '    ')}
${indent(PREDIS_AFTER[pattern], '    ')}
}
`,
  );
  return path;
}

describe('compile checks', () => {
  for (const client of Object.keys(JAVA_CLIENT)) {
    test(`${client}: every pattern compiles with javac (Java 17) against the real library, its header's imports only`, async () => {
      const dir = join(work, client);
      const sources: string[] = [];
      const { imports, parameter } = JAVA_CLIENT[client];
      for (const pattern of PATTERNS) {
        const code = renderCode(client, pattern, pack);
        const className = `Locked${pattern[0].toUpperCase()}${pattern.slice(1)}`;
        sources.push(`${className}.java`);
        writeFiles(dir, {
          [`${className}.java`]: `${[...headerImports(code), ...imports].map((name) => `import ${name};\n`).join('')}
class ${className} {
    static void locked(${parameter}) throws InterruptedException {
${indent(code, '        ')}
    }
}
`,
        });
      }
      await javac(dir, sources, ['-Xlint:all,-serial', '-Werror']);
    });
  }

  test("go-redis and redigo: every pattern passes go vet with its header's imports, and is gofmt-clean", async () => {
    const dir = join(work, 'go');
    writeGoModule(dir);
    // The variables each snippet assumes (redigo's take no context).
    const clients = { 'go-redis': 'ctx context.Context, rdb *redis.Client', redigo: 'pool *redis.Pool' };
    for (const [client, parameter] of Object.entries(clients)) {
      for (const pattern of PATTERNS) {
        const code = renderCode(client, pattern, pack);
        // The standard library, then the client library: gofmt sorts each group by path.
        const imports = headerImports(code).map((name) => (name.includes('"') ? name : `"${name}"`));
        const [standard, modules] = [
          imports.filter((name) => !name.includes('.')),
          imports.filter((name) => name.includes('.')),
        ];
        writeFiles(dir, {
          [`${client}/${pattern}/locked.go`]: `package locked

import (
${standard.map((name) => `\t${name}`).join('\n')}

${modules.map((name) => `\t${name}`).join('\n')}
)

func locked(${parameter}) error {
${indent(code, '\t')}
\treturn nil
}
`,
        });
        assert.equal(
          await check('gofmt', ['-l', join(dir, client, pattern, 'locked.go')]),
          '',
          `gofmt would change ${client} ${pattern}`,
        );
      }
    }
    await go(['vet', './...'], dir);
  });

  test("glide-go: every pattern passes go vet against the pinned GLIDE for Go with its header's imports, and is gofmt-clean", async () => {
    const dir = join(work, 'glide-go');
    writeGoModule(dir);
    for (const pattern of PATTERNS) {
      const code = renderCode('glide-go', pattern, pack);
      const imports = headerImports(code).map((name) => (name.includes('"') ? name : `"${name}"`));
      const [standard, modules] = [
        imports.filter((name) => !name.includes('.')),
        imports.filter((name) => name.includes('.')),
      ];
      writeFiles(dir, {
        [`${pattern}/locked.go`]: `package locked

import (
${standard.map((name) => `\t${name}`).join('\n')}

\tglide "github.com/valkey-io/valkey-glide/go/v2"
${modules.map((name) => `\t${name}`).join('\n')}
)

func locked(ctx context.Context, standalone *glide.Client, cluster *glide.ClusterClient) error {
\tfor _, client := range []interface {
\t\tInvokeScriptWithOptions(context.Context, options.Script, options.ScriptOptions) (any, error)
\t}{standalone, cluster} {
${indent(indent(code, '\t'), '\t')}
\t}
\treturn nil
}
`,
      });
      assert.equal(await check('gofmt', ['-l', join(dir, pattern, 'locked.go')]), '', `gofmt would change ${pattern}`);
    }
    await go(['vet', './...'], dir);
  });

  test('redis-rs: every pattern passes cargo check (warnings denied) against redis-rs and rand', async () => {
    const modules = PATTERNS.map(
      (pattern) => `mod ${pattern} {
    #[allow(unused)]
    pub fn locked(client: redis::Client, mut con: redis::Connection) -> Result<(), Box<dyn std::error::Error>> {
${indent(renderCode('redis-rs', pattern, pack), '        ')}
        Ok(())
    }
}
`,
    );
    const dir = join(work, 'redis-rs');
    writeCargoPackage(dir, { 'main.rs': `#![deny(warnings)]\n\n${modules.join('\n')}\nfn main() {}\n` });
    await cargo(dir, 'check');
  });

  test('predis: every pattern passes php -l', { skip: missing('/usr/bin/php', 'php-cli') }, async () => {
    for (const pattern of PATTERNS) {
      const path = join(work, `predis-lint-${pattern}.php`);
      writeFileSync(path, `<?php\n${renderCode('predis', pattern, pack)}`);
      await check('/usr/bin/php', ['-l', path]);
    }
  });

  describe(
    'predis against a real Redis',
    { skip: missing(PREDIS, 'php-predis') || missing('/usr/bin/php', 'php-cli') },
    () => {
      const fx = useRedis();
      const runPhp = (path: string, rounds: number) => check('/usr/bin/php', [path, fx.server.url, String(rounds)]);

      test('guard: two processes x 200 rounds around a non-atomic counter end exact, with SCRIPT FLUSH between rounds', async () => {
        await fx.redis.flushall();
        const path = predisProgram('guard', 5000);
        await Promise.all([runPhp(path, 200), runPhp(path, 200)]);
        assert.equal(await fx.redis.get('proof:counter'), '400');
        assert.equal(await fx.redis.exists('proof:lock'), 0, 'released');
      });

      test('renew: the lock outlives 3x its TTL while the body calls $lockRenew, and nothing renews after release', async () => {
        await fx.redis.flushall();
        await runPhp(predisProgram('renew', 300), 1);
        assert.equal(await fx.redis.get('proof:renewed'), '1');
        assert.equal(await fx.redis.exists('proof:lock'), 0);
      });

      test('fenced: tokens strictly increase across two contending processes', async () => {
        await fx.redis.flushall();
        const path = predisProgram('fenced', 5000);
        await Promise.all([runPhp(path, 50), runPhp(path, 50)]);
        const tokens = (await fx.redis.lrange('proof:tokens', 0, -1)).map(Number);
        assert.equal(tokens.length, 100);
        for (let i = 1; i < tokens.length; i++)
          assert.ok(tokens[i] > tokens[i - 1], `token ${tokens[i]} after ${tokens[i - 1]}`);
      });
    },
  );
});
