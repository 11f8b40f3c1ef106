// The helper API the lint fixes call (snippets/helperApi.ts): the try variant and the low-level
// release and extend, written by helperCall and run as real programs against a throwaway Redis for
// every client this machine runs (ioredis, node-redis, Valkey GLIDE for Node, redis-py sync and asyncio, GLIDE for Python, phpredis, Predis,
// redis-rb, redigo, go-redis, Jedis, Lettuce, Spring Data Redis, redis-rs) on Redis 7.0 and Valkey 9, and compiled for the typed ones (tsc strict against the real ioredis and
// node-redis types; javac with Jedis, Lettuce and Spring Data Redis, go vet with go-redis, cargo check with redis-rs).
//   try while another holds: "busy" at once, one script call, no subscription, no waiter queue;
//   try while free: the lease, which releases;
//   release / extend with a foreign token: false, the holder's key and lease untouched;
//   release / extend with the holder's token: true, the key deleted or its lease set.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { waitersKey } from '../pack/layout';
import type { Pack } from '../pack/pack';
import { CLIENTS } from '../snippets/clients';
import { renderHelper } from '../snippets/helper';
import {
  HELPER_OPS,
  helperCall,
  helperCallImports,
  TRY_ACQUIRE_BUSY,
  type HelperCallArgs,
  type HelperOp,
} from '../snippets/helperApi';
import { check, strictTsconfig, writeFiles } from './golden-support';
import { SERVER_KINDS, type ServerKind } from '../harness/redis';
import { pack, setWithLease, useRedis } from './helpers';
import {
  cargo,
  glideJavaClasspath,
  go,
  javac,
  javaCommand,
  npmPackages,
  pypiPython,
  writeCargoPackage,
  writeGoModule,
} from '../harness/toolchains';
import { start } from './proofs/helpers/run';

const work = mkdtempSync(join(tmpdir(), 'locksmith-helper-api-'));
after(() => rmSync(work, { recursive: true, force: true }));
const KEY = 'api:lock';

/** The three calls as helperCall writes them, with the program's own variable names, and their imports. */
function calls(
  client: string,
  clients: Partial<Record<HelperOp, string>> & { default: string },
  names: Omit<HelperCallArgs, 'client'>,
  helperImport: string,
  flavor?: 'cjs' | 'ts',
) {
  const rendered = Object.fromEntries(
    HELPER_OPS.map((op) => [op, helperCall(client, op, { ...names, client: clients[op] ?? clients.default })]),
  ) as Record<HelperOp, { code: string; importedNames: string[] }>;
  const imports = helperCallImports(
    client,
    HELPER_OPS.flatMap((op) => rendered[op].importedNames),
    { helperImport, ...(flavor && { flavor }) },
  );
  return { ...rendered, imports: imports.join('\n') };
}

const JS_NAMES = { key: 'key', token: 'token', ttlMs: 'ttlMs' };
const PY_NAMES = { key: 'key', token: 'token', ttlMs: 'ttl_ms' };
const PHP_NAMES = { key: '$key', token: '$token', ttlMs: '$ttlMs' };

/** A program printing the outcome of one mode: try (busy / held), release or extend (true / false). */
interface ApiProgram {
  name: string;
  client: string;
  /** Writes the helper and the program into dir; the command (URL, mode, token, ttl follow). */
  prepare(dir: string, pack: Pack): Promise<string[]>;
  env?: Record<string, string>;
}

function writeHelper(dir: string, client: string, options: Record<string, string> = {}) {
  mkdirSync(dir, { recursive: true });
  const helper = renderHelper(client, pack, options);
  writeFileSync(join(dir, helper.fileName), helper.text);
}

const node = (client: 'ioredis' | 'node-redis'): ApiProgram => ({
  name: client,
  client,
  prepare(dir) {
    writeHelper(dir, client, { flavor: 'cjs' });
    const c = calls(client, { default: 'redis' }, JS_NAMES, './locksmith', 'cjs');
    const connect =
      client === 'ioredis'
        ? 'const redis = new (require(process.env.IOREDIS_PATH))(url);\nconst ready = Promise.resolve();'
        : 'const redis = require(process.env.NODE_REDIS_PATH).createClient({ url });\nconst ready = redis.connect();';
    writeFileSync(
      join(dir, 'api.js'),
      `${c.imports}
const [url, mode, token = '', ttl = '5000'] = process.argv.slice(2);
const key = '${KEY}';
const ttlMs = Number(ttl);
${connect}
async function main() {
  if (mode === 'try') {
    const lease = ${c.tryAcquire.code};
    console.log(lease === null ? 'busy' : 'held');
    if (lease !== null) await lease.release();
  } else if (mode === 'release') {
    console.log(String(${c.release.code}));
  } else {
    console.log(String(${c.extend.code}));
  }
}
ready
  .then(main)
  .then(() => ${client === 'ioredis' ? 'redis.quit()' : 'redis.close()'})
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
`,
    );
    return Promise.resolve([process.execPath, join(dir, 'api.js')]);
  },
  env: { IOREDIS_PATH: require.resolve('ioredis'), NODE_REDIS_PATH: require.resolve('redis') },
});

/** Valkey GLIDE for Node: a GlideClient, GLIDE linked as the program's node_modules (a project's). */
const glideNode: ApiProgram = {
  name: 'glide-node',
  client: 'glide-node',
  async prepare(dir) {
    writeHelper(dir, 'glide-node', { flavor: 'cjs' });
    symlinkSync(await npmPackages('glide'), join(dir, 'node_modules'));
    const c = calls('glide-node', { default: 'client' }, JS_NAMES, './locksmith', 'cjs');
    writeFileSync(
      join(dir, 'api.js'),
      `${c.imports}
const { GlideClient } = require('@valkey/valkey-glide');
const [url, mode, token = '', ttl = '5000'] = process.argv.slice(2);
const key = '${KEY}';
const ttlMs = Number(ttl);
async function main(client) {
  if (mode === 'try') {
    const lease = ${c.tryAcquire.code};
    console.log(lease === null ? 'busy' : 'held');
    if (lease !== null) await lease.release();
  } else if (mode === 'release') {
    console.log(String(${c.release.code}));
  } else {
    console.log(String(${c.extend.code}));
  }
  client.close();
}
const { hostname, port } = new URL(url);
GlideClient.createClient({ addresses: [{ host: hostname, port: Number(port) }] })
  .then(main)
  .then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
`,
    );
    return [process.execPath, join(dir, 'api.js')];
  },
};

const python = (isAsync: boolean): ApiProgram => ({
  name: isAsync ? 'redis-py (asyncio)' : 'redis-py',
  client: 'redis-py',
  prepare(dir) {
    writeHelper(dir, 'redis-py');
    const names = { ...PY_NAMES, async: isAsync };
    const c = calls('redis-py', { default: 'r' }, names, 'locksmith');
    if (isAsync) {
      // The release and extend the fixes write run on the core alone; try_acquire_async is the asyncio part's.
      const withPart = renderHelper('redis-py', pack, { kinds: 'asyncio' });
      writeFileSync(join(dir, 'locksmith_asyncio.py'), withPart.text);
      c.imports = [
        ...helperCallImports('redis-py', ['release_lock_async', 'extend_lock_async'], { helperImport: 'locksmith' }),
        ...helperCallImports('redis-py', ['try_acquire_async'], { helperImport: 'locksmith_asyncio' }),
      ].join('\n');
    }
    const maybe = isAsync ? 'await ' : '';
    writeFileSync(
      join(dir, 'api.py'),
      `import asyncio
import sys

import redis
import redis.asyncio

${c.imports}

url, mode = sys.argv[1], sys.argv[2]
token = sys.argv[3] if len(sys.argv) > 3 else ""
ttl_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
key = "${KEY}"


async def main():
    r = ${isAsync ? 'redis.asyncio.Redis.from_url(url)' : 'redis.Redis.from_url(url)'}
    if mode == "try":
        lease = ${c.tryAcquire.code}
        print("busy" if lease is None else "held")
        if lease is not None:
            ${maybe}lease.release()
    elif mode == "release":
        print(str(${c.release.code}).lower())
    else:
        print(str(${c.extend.code}).lower())
    ${isAsync ? 'await r.aclose() if hasattr(r, "aclose") else await r.close()' : 'r.close()'}


asyncio.run(main())
`,
    );
    return Promise.resolve(['/usr/bin/python3', join(dir, 'api.py')]);
  },
});

/** Valkey GLIDE for Python (asyncio): a GlideClient, on the pinned GLIDE's virtual environment. */
const glidePython: ApiProgram = {
  name: 'glide-python',
  client: 'glide-python',
  async prepare(dir) {
    writeHelper(dir, 'glide-python');
    const c = calls('glide-python', { default: 'client' }, PY_NAMES, 'locksmith');
    writeFileSync(
      join(dir, 'api.py'),
      `import asyncio
import sys
from urllib.parse import urlparse

from glide import GlideClient, GlideClientConfiguration, NodeAddress

${c.imports}

url, mode = sys.argv[1], sys.argv[2]
token = sys.argv[3] if len(sys.argv) > 3 else ""
ttl_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
key = "${KEY}"


async def main():
    address = urlparse(url)
    client = await GlideClient.create(GlideClientConfiguration([NodeAddress(address.hostname, address.port)]))
    if mode == "try":
        lease = ${c.tryAcquire.code}
        print("busy" if lease is None else "held")
        if lease is not None:
            await lease.release()
    elif mode == "release":
        print(str(${c.release.code}).lower())
    else:
        print(str(${c.extend.code}).lower())
    await client.close()


asyncio.run(main())
`,
    );
    return [await pypiPython('glide/requirements.txt'), join(dir, 'api.py')];
  },
};

const php = (client: 'phpredis' | 'predis'): ApiProgram => ({
  name: client,
  client,
  prepare(dir) {
    writeHelper(dir, client);
    const c = calls(client, { default: '$redis' }, PHP_NAMES, 'Locksmith.php');
    const connect =
      client === 'phpredis'
        ? "['host' => $host, 'port' => $port] = parse_url($url);\n$redis = new Redis();\n$redis->connect($host, $port);"
        : "require_once '/usr/share/php/Predis/autoload.php';\n$redis = new Predis\\Client($url);";
    writeFileSync(
      join(dir, 'api.php'),
      `<?php
declare(strict_types=1);

${c.imports}

[, $url, $mode] = $argv;
$token = $argv[3] ?? '';
$ttlMs = (int) ($argv[4] ?? 5000);
$key = '${KEY}';
${connect}
switch ($mode) {
    case 'try':
        $lease = ${c.tryAcquire.code};
        echo $lease === null ? "busy\\n" : "held\\n";
        $lease?->release();
        break;
    case 'release':
        echo var_export(${c.release.code}, true), "\\n";
        break;
    default:
        echo var_export(${c.extend.code}, true), "\\n";
}
`,
    );
    return Promise.resolve(['/usr/bin/php', join(dir, 'api.php')]);
  },
});

const ruby: ApiProgram = {
  name: 'redis-rb',
  client: 'redis-rb',
  prepare(dir) {
    writeHelper(dir, 'redis-rb');
    const c = calls('redis-rb', { default: 'redis' }, PY_NAMES, 'locksmith');
    writeFileSync(
      join(dir, 'api.rb'),
      `require 'redis'
${c.imports}

url, mode, token, ttl = ARGV
ttl_ms = (ttl || '5000').to_i
key = '${KEY}'
redis = Redis.new(url: url)
case mode
when 'try'
  lease = ${c.tryAcquire.code}
  puts(lease.nil? ? 'busy' : 'held')
  lease&.release
when 'release' then puts(${c.release.code})
else puts(${c.extend.code})
end
`,
    );
    return Promise.resolve(['/usr/bin/ruby', join(dir, 'api.rb')]);
  },
};

const redigo: ApiProgram = {
  name: 'redigo',
  client: 'redigo',
  async prepare(dir) {
    writeGoModule(dir);
    writeHelper(join(dir, 'locksmith'), 'redigo');
    const c = calls(
      'redigo',
      { default: 'conn', tryAcquire: 'pool' },
      { key: 'key', token: 'token', ttlMs: 'ttlMs' },
      'locksmithproof/locksmith',
    );
    writeFileSync(
      join(dir, 'main.go'),
      `package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
)

${c.imports}

func main() {
	url, mode := os.Args[1], os.Args[2]
	token, ttlMs := "", int64(5000)
	if len(os.Args) > 3 {
		token = os.Args[3]
	}
	if len(os.Args) > 4 {
		ttlMs, _ = strconv.ParseInt(os.Args[4], 10, 64)
	}
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.DialURL(url) }}
	defer pool.Close()
	conn := pool.Get()
	defer conn.Close()
	ctx := context.Background()
	key := "${KEY}"
	var err error
	switch mode {
	case "try":
		lease, ok, tryErr := ${c.tryAcquire.code}
		err = tryErr
		if ok {
			fmt.Println("held")
			_, err = lease.Release(ctx)
		} else if err == nil {
			fmt.Println("busy")
		}
	case "release":
		var held bool
		held, err = ${c.release.code}
		fmt.Println(held)
	default:
		var held bool
		held, err = ${c.extend.code}
		fmt.Println(held)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = time.Millisecond
}
`,
    );
    await go(['build', '-o', join(dir, 'api'), '.'], dir);
    return [join(dir, 'api')];
  },
};

const goRedis: ApiProgram = {
  name: 'go-redis',
  client: 'go-redis',
  async prepare(dir) {
    writeGoModule(dir);
    writeHelper(join(dir, 'locksmith'), 'go-redis');
    const c = calls(
      'go-redis',
      { default: 'rdb' },
      { key: 'key', token: 'token', ttlMs: 'ttlMs' },
      'locksmithproof/locksmith',
    );
    writeFileSync(
      join(dir, 'main.go'),
      `package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

${c.imports}

func main() {
	url, mode := os.Args[1], os.Args[2]
	token, ttlMs := "", int64(5000)
	if len(os.Args) > 3 {
		token = os.Args[3]
	}
	if len(os.Args) > 4 {
		ttlMs, _ = strconv.ParseInt(os.Args[4], 10, 64)
	}
	options, err := redis.ParseURL(url)
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(options)
	defer rdb.Close()
	ctx := context.Background()
	key := "${KEY}"
	switch mode {
	case "try":
		lease, ok, tryErr := ${c.tryAcquire.code}
		err = tryErr
		if ok {
			fmt.Println("held")
			_, err = lease.Release(ctx)
		} else if err == nil {
			fmt.Println("busy")
		}
	case "release":
		var held bool
		held, err = ${c.release.code}
		fmt.Println(held)
	default:
		var held bool
		held, err = ${c.extend.code}
		fmt.Println(held)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = time.Millisecond
}
`,
    );
    await go(['build', '-o', join(dir, 'api'), '.'], dir);
    return [join(dir, 'api')];
  },
};

/** GLIDE for Go (test/proofs/go pins it) on a *glide.Client. */
const glideGo: ApiProgram = {
  name: 'glide-go',
  client: 'glide-go',
  async prepare(dir) {
    writeGoModule(dir);
    writeHelper(join(dir, 'locksmith'), 'glide-go');
    const c = calls(
      'glide-go',
      { default: 'client' },
      { key: 'key', token: 'token', ttlMs: 'ttlMs' },
      'locksmithproof/locksmith',
    );
    writeFileSync(
      join(dir, 'main.go'),
      `package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	glide "github.com/valkey-io/valkey-glide/go/v2"
	"github.com/valkey-io/valkey-glide/go/v2/config"
)

${c.imports}

func main() {
	target, mode := os.Args[1], os.Args[2]
	token, ttlMs := "", int64(5000)
	if len(os.Args) > 3 {
		token = os.Args[3]
	}
	if len(os.Args) > 4 {
		ttlMs, _ = strconv.ParseInt(os.Args[4], 10, 64)
	}
	parsed, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	port, err := strconv.Atoi(parsed.Port())
	if err != nil {
		panic(err)
	}
	address := &config.NodeAddress{Host: parsed.Hostname(), Port: port}
	client, err := glide.NewClient(config.NewClientConfiguration().WithAddress(address).WithRequestTimeout(5 * time.Second))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	key := "${KEY}"
	switch mode {
	case "try":
		lease, ok, tryErr := ${c.tryAcquire.code}
		err = tryErr
		if ok {
			fmt.Println("held")
			_, err = lease.Release(ctx)
		} else if err == nil {
			fmt.Println("busy")
		}
	case "release":
		var held bool
		held, err = ${c.release.code}
		fmt.Println(held)
	default:
		var held bool
		held, err = ${c.extend.code}
		fmt.Println(held)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = time.Millisecond
}
`,
    );
    await go(['build', '-o', join(dir, 'api'), '.'], dir);
    return [join(dir, 'api')];
  },
};

/** How each Java program connects: its import, the statements that make `redis`, and those that close it. */
const JVM_CONNECT = {
  jedis: ['import redis.clients.jedis.RedisClient;', 'var redis = RedisClient.create(url);', 'redis.close();'],
  lettuce: [
    'import io.lettuce.core.RedisClient;',
    'var client = RedisClient.create(url);\n        var connection = client.connect();\n        var redis = connection.sync();',
    'connection.close();\n        client.shutdown();',
  ],
  // A StringRedisTemplate over Lettuce, as Spring Boot configures one.
  'spring-data-redis': [
    'import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;\nimport org.springframework.data.redis.core.StringRedisTemplate;',
    'var factory = new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(url));\n        factory.afterPropertiesSet();\n        factory.start();\n        var redis = new StringRedisTemplate(factory);',
    'factory.destroy();',
  ],
  // GLIDE for Java's API is futures: join() waits for the client, and close() declares ExecutionException.
  'glide-java': [
    'import glide.api.GlideClient;\nimport glide.api.models.configuration.GlideClientConfiguration;\nimport glide.api.models.configuration.NodeAddress;',
    'var uri = java.net.URI.create(url);\n        var address = NodeAddress.builder().host(uri.getHost()).port(uri.getPort()).build();\n        var redis = GlideClient.createClient(GlideClientConfiguration.builder().address(address).build()).join();',
    'try {\n            redis.close();\n        } catch (java.util.concurrent.ExecutionException closing) {\n            throw new IllegalStateException(closing);\n        }',
  ],
};

/** A Java program: the helper in the default package beside Api.java, compiled against the pinned jars. */
const jvm = (client: keyof typeof JVM_CONNECT): ApiProgram => ({
  name: client,
  client,
  async prepare(dir) {
    writeHelper(dir, client);
    const c = calls(client, { default: 'redis' }, { key: 'key', token: 'token', ttlMs: 'ttlMs' }, '');
    const [imports, connect, close] = JVM_CONNECT[client];
    writeFileSync(
      join(dir, 'Api.java'),
      `${imports}

public class Api {
    public static void main(String[] args) {
        String url = args[0];
        String mode = args[1];
        String token = args.length > 2 ? args[2] : "";
        long ttlMs = args.length > 3 ? Long.parseLong(args[3]) : 5000;
        String key = "${KEY}";
        ${connect}
        switch (mode) {
            case "try" -> {
                try (Locksmith.Lease lease = ${c.tryAcquire.code}) {
                    System.out.println(lease == null ? "busy" : "held");
                }
            }
            case "release" -> System.out.println(${c.release.code});
            default -> System.out.println(${c.extend.code});
        }
        ${close}
    }
}
`,
    );
    const jars = client === 'glide-java' ? await glideJavaClasspath() : undefined;
    const classpath = await javac(dir, ['Locksmith.java', 'Api.java'], [], jars);
    return javaCommand(classpath, 'Api');
  },
});

const redisRs: ApiProgram = {
  name: 'redis-rs',
  client: 'redis-rs',
  async prepare(dir) {
    const c = calls(
      'redis-rs',
      { default: 'con' },
      { key: 'key', token: '&token', ttlMs: 'ttl_ms' },
      'crate::locksmith',
    );
    writeCargoPackage(dir, {
      'locksmith.rs': renderHelper('redis-rs', pack).text,
      'main.rs': `mod locksmith;
${c.imports}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let mode = args[2].as_str();
    let token = args.get(3).cloned().unwrap_or_default();
    let ttl_ms: u64 = args.get(4).map_or(Ok(5000), |ms| ms.parse())?;
    let key = "${KEY}";
    let client = redis::Client::open(args[1].as_str())?;
    let mut con = client.get_connection()?;
    match mode {
        "try" => match ${c.tryAcquire.code}? {
            Some(lease) => {
                println!("held");
                lease.release(&mut con)?;
            }
            None => println!("busy"),
        },
        "release" => println!("{}", ${c.release.code}?),
        _ => println!("{}", ${c.extend.code}?),
    }
    Ok(())
}
`,
    });
    return [await cargo(dir, 'build')];
  },
};

const PROGRAMS = [
  node('ioredis'),
  node('node-redis'),
  glideNode,
  jvm('glide-java'),
  python(false),
  python(true),
  glidePython,
  php('phpredis'),
  php('predis'),
  ruby,
  redigo,
  goRedis,
  glideGo,
  jvm('jedis'),
  jvm('lettuce'),
  jvm('spring-data-redis'),
  redisRs,
];

/** Each program, written and built once however many servers it runs on. */
const prepared = new Map<string, Promise<string[]>>();
const prepareOnce = (program: ApiProgram) => {
  let command = prepared.get(program.name);
  if (!command) {
    command = program.prepare(join(work, program.name.replace(/\W+/g, '-')), pack);
    prepared.set(program.name, command);
  }
  return command;
};

for (const server of SERVER_KINDS) describe(server, () => proofs(server));

function proofs(server: ServerKind): void {
  const fx = useRedis({ server });

  /** Calls of a command since the last CONFIG RESETSTAT. */
  async function calledTimes(command: string): Promise<number> {
    const stats = await fx.redis.info('commandstats');
    return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  }

  for (const program of PROGRAMS) {
    describe(`${program.name}: the helper's try, release and extend, as helperCall writes them`, () => {
      let command: string[];
      const run = async (...args: string[]) =>
        (await start(command, fx.server.url, program.env ?? {}, args).done).trim();

      before(async () => {
        command = await prepareOnce(program);
      });
      beforeEach(async () => {
        await fx.redis.flushall();
      });

      test('try while another holds: busy at once, one script call, no subscription, no place in line', async () => {
        await fx.redis.set(KEY, 'holder', 'PX', 60_000);
        await fx.redis.script('LOAD', pack.acquire.source); // EVALSHA succeeds first time: one call is one try
        await fx.redis.config('RESETSTAT');
        assert.equal(await run('try'), 'busy');
        assert.equal((await calledTimes('evalsha')) + (await calledTimes('eval')), 1, 'one acquire, no retry');
        assert.equal(await calledTimes('ssubscribe'), 0, 'no subscription: it does not wait for a wake-up');
        assert.equal(await fx.redis.exists(waitersKey(KEY)!), 0, 'not in line');
        assert.equal(await fx.redis.get(KEY), 'holder');
      });

      test('try while free: the lease, which releases', async () => {
        assert.equal(await run('try'), 'held');
        assert.equal(await fx.redis.exists(KEY), 0, 'released');
      });

      test("release and extend with a foreign token: false, the holder's lock untouched", async () => {
        const leaseUntouched = await setWithLease(fx.redis, KEY, 'holder', 60_000);
        assert.equal(await run('release', 'intruder'), 'false');
        assert.equal(await run('extend', 'intruder', '1000'), 'false');
        assert.equal(await fx.redis.get(KEY), 'holder');
        await leaseUntouched('lease not shortened');
        await fx.redis.del(KEY);
        assert.equal(await run('release', 'holder'), 'false', 'nothing held');
        assert.equal(await run('extend', 'holder', '1000'), 'false', 'nothing held');
        assert.equal(await fx.redis.exists(KEY), 0, 'extend never creates the key');
      });

      test("release and extend with the holder's token: extend sets the lease, release deletes", async () => {
        await fx.redis.set(KEY, 'holder', 'PX', 60_000);
        // Set to 30 s, not added to the 60 s: long enough for the next program to start (a Lettuce
        // one took over 5 s on a loaded 2-core machine, and found its 5 s lease gone).
        assert.equal(await run('extend', 'holder', '30000'), 'true');
        const pttl = await fx.redis.pttl(KEY);
        assert.ok(pttl > 0 && pttl <= 30_000, `lease now ${pttl} ms`);
        assert.equal(await run('release', 'holder'), 'true');
        assert.equal(await fx.redis.exists(KEY), 0);
      });
    });
  }
}

describe('helperCall compiles in the typed languages', () => {
  test('ioredis and node-redis: TypeScript, strict, against the real types', async () => {
    for (const client of ['ioredis', 'node-redis'] as const) {
      const dir = join(work, 'ts', client);
      const c = calls(client, { default: 'redis' }, JS_NAMES, './locksmith.js', 'ts');
      const library =
        client === 'ioredis'
          ? "import { Redis } from 'ioredis';\ntype Client = Redis;"
          : "import { createClient } from 'redis';\ntype Client = ReturnType<typeof createClient>;";
      writeFiles(dir, {
        'locksmith.ts': renderHelper(client, pack, { flavor: 'ts' }).text,
        'api.ts': `${library}
${c.imports}

export async function api(redis: Client, key: string, token: string, ttlMs: number): Promise<boolean> {
  const lease = ${c.tryAcquire.code};
  if (lease !== null) await lease.release();
  return (${c.release.code}) && (${c.extend.code});
}
`,
        'tsconfig.json': strictTsconfig(['locksmith.ts', 'api.ts']),
      });
      await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir]);
    }
  });

  test('glide-node: TypeScript, strict, against the pinned GLIDE (a GlideClient and a GlideClusterClient)', async () => {
    const modules = await npmPackages('glide');
    const dir = join(work, 'ts', 'glide-node');
    const c = calls('glide-node', { default: 'client' }, JS_NAMES, './locksmith.js', 'ts');
    const tsconfig = JSON.parse(strictTsconfig(['locksmith.ts', 'api.ts'])) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    tsconfig.compilerOptions.paths['@valkey/valkey-glide'] = [join(modules, '@valkey', 'valkey-glide')];
    writeFiles(dir, {
      'locksmith.ts': renderHelper('glide-node', pack, { flavor: 'ts' }).text,
      'api.ts': `import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
${c.imports}

export async function api(client: GlideClient | GlideClusterClient, key: string, token: string, ttlMs: number): Promise<boolean> {
  const lease = ${c.tryAcquire.code};
  if (lease !== null) await lease.release();
  return (${c.release.code}) && (${c.extend.code});
}
`,
      'tsconfig.json': JSON.stringify(tsconfig),
    });
    await check(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir]);
  });

  test('jedis, lettuce and spring-data-redis: javac against the real libraries', async () => {
    const clients = {
      jedis: ['UnifiedJedis', '@SuppressWarnings("deprecation") JedisPool', 'Jedis'],
      lettuce: ['RedisCommands<String, String>'],
      'spring-data-redis': ['StringRedisTemplate'],
    };
    for (const [client, types] of Object.entries(clients)) {
      const dir = join(work, 'java', client);
      const c = calls(
        client,
        { default: 'redis' },
        { key: 'key', token: 'token', ttlMs: 'ttlMs' },
        'com.example.locks',
      );
      const methods = types.map((type, n) => {
        // A single Jedis connection is for the low-level calls: a lease's renewal needs a pool.
        const tried =
          type.endsWith(' Jedis') || type === 'Jedis'
            ? ''
            : `        try (Locksmith.Lease lease = ${c.tryAcquire.code}) {
            if (lease == null) return false;
        }
`;
        return `    static boolean api${n}(${type} redis, String key, String token, long ttlMs) {
${tried}        return ${c.release.code} && ${c.extend.code};
    }
`;
      });
      writeFiles(dir, {
        'com/example/locks/Locksmith.java': renderHelper(client, pack, { package: 'com.example.locks' }).text,
        'app/Api.java': `package app;
${c.imports}
import io.lettuce.core.api.sync.RedisCommands;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.UnifiedJedis;

@SuppressWarnings("deprecation") // JedisPool, deprecated in Jedis 8
class Api {
${methods.join('\n')}}
`,
      });
      await javac(dir, ['com/example/locks/Locksmith.java', 'app/Api.java'], ['-Xlint:all,-serial,-try', '-Werror']);
    }
  });

  test('go-redis: go vet against go-redis', async () => {
    const dir = join(work, 'go');
    writeGoModule(dir);
    const c = calls(
      'go-redis',
      { default: 'rdb' },
      { key: 'key', token: 'token', ttlMs: 'ttlMs' },
      'locksmithproof/locksmith',
    );
    writeFiles(dir, {
      'locksmith/locksmith.go': renderHelper('go-redis', pack).text,
      'api/api.go': `package api

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

${c.imports}

func Api(ctx context.Context, rdb *redis.Client, key, token string, ttlMs int64) (bool, error) {
	lease, ok, err := ${c.tryAcquire.code}
	if err != nil || !ok {
		return false, err
	}
	if _, err := lease.Release(ctx); err != nil {
		return false, err
	}
	released, err := ${c.release.code}
	if err != nil {
		return false, err
	}
	extended, err := ${c.extend.code}
	return released && extended, err
}
`,
    });
    await go(['vet', './...'], dir);
  });

  test('redis-rs: cargo check (warnings denied) against redis-rs', async () => {
    const dir = join(work, 'rust');
    const c = calls(
      'redis-rs',
      { default: 'con' },
      { key: 'key', token: 'token', ttlMs: 'ttl_ms' },
      'crate::locksmith',
    );
    writeCargoPackage(dir, {
      'locksmith.rs': renderHelper('redis-rs', pack).text,
      'main.rs': 'fn main() {}\n',
      'lib.rs': `#![deny(warnings)]

pub mod locksmith;
${c.imports}

pub fn api(mut con: redis::Connection, key: &str, token: &str, ttl_ms: u64) -> Result<bool, locksmith::LockError> {
    if let Some(lease) = ${c.tryAcquire.code}? {
        lease.release(&mut con)?;
    }
    Ok(${c.release.code}? && ${c.extend.code}?)
}
`,
    });
    await cargo(dir, 'check');
  });
});

describe('helperCall', () => {
  test('every client has every op; what an op needs is asked for by name; async is redis-py only', () => {
    assert.deepEqual(Object.keys(TRY_ACQUIRE_BUSY).sort(), CLIENTS.map((client) => client.id).sort());
    for (const client of CLIENTS) {
      for (const op of HELPER_OPS) {
        const call = helperCall(client.id, op, { client: 'c', key: 'k', token: 't', ttlMs: '1000' });
        assert.ok(call.code.includes('k') && call.importedNames.length === 1, `${client.id} ${op}`);
      }
    }
    assert.throws(() => helperCall('ioredis', 'release', { client: 'r', key: 'k' }), {
      message: 'ioredis release needs token',
    });
    assert.throws(() => helperCall('jedis', 'extend', { client: 'r', key: 'k' }), {
      message: 'jedis extend needs token and ttlMs',
    });
    assert.throws(() => helperCall('go-redis', 'release', { client: 'r', key: 'k', token: 't', async: true }), {
      message: "go-redis: 'async' is for redis-py's asyncio client only",
    });
    assert.deepEqual(helperCall('redis-py', 'release', { client: 'r', key: 'k', token: 't', async: true }), {
      code: 'await release_lock_async(r, k, t)',
      importedNames: ['release_lock_async'],
    });
    // A lease in ms as Go code writes it: the largest unit that divides it.
    for (const [ms, duration] of [
      ['30_000', '30*time.Second'],
      ['120000', '2*time.Minute'],
      ['7200000', '2*time.Hour'],
      ['1500', '1500*time.Millisecond'],
    ])
      assert.equal(
        helperCall('go-redis', 'extend', { client: 'rdb', key: 'k', token: 't', ttlMs: ms }).code,
        `locksmith.ExtendLock(ctx, rdb, k, t, ${duration})`,
      );
    assert.equal(
      helperCall('redigo', 'extend', { client: 'conn', key: 'k', token: 't', ttlMs: 'ttl' }).code,
      'locksmith.ExtendLock(conn, k, t, time.Duration(ttl)*time.Millisecond)',
    );
    // C# and Rust as their code writes a lease, a variable as milliseconds.
    for (const [ms, timeSpan, duration] of [
      ['30_000', 'TimeSpan.FromSeconds(30)', 'Duration::from_secs(30)'],
      ['120000', 'TimeSpan.FromMinutes(2)', 'Duration::from_secs(120)'],
      ['7200000', 'TimeSpan.FromHours(2)', 'Duration::from_secs(7200)'],
      ['1500', 'TimeSpan.FromMilliseconds(1500)', 'Duration::from_millis(1500)'],
      ['ttlMs', 'TimeSpan.FromMilliseconds(ttlMs)', 'Duration::from_millis(ttlMs)'],
    ]) {
      assert.equal(
        helperCall('stackexchange', 'tryAcquire', { client: 'db', key: 'k', ttlMs: ms }).code,
        `await RedisLock.TryAcquireAsync(db, k, ${timeSpan})`,
      );
      assert.equal(
        helperCall('redis-rs', 'tryAcquire', { client: 'con', key: 'k', ttlMs: ms }).code,
        `Lease::try_acquire(&mut con, k, std::time::${duration})`,
      );
    }
  });

  test('imports: names deduplicated, in the forms call sites use', () => {
    assert.deepEqual(
      helperCallImports('ioredis', ['releaseLock', 'extendLock', 'releaseLock'], { helperImport: './lib/locksmith' }),
      ["import { releaseLock, extendLock } from './lib/locksmith';"],
    );
    assert.deepEqual(helperCallImports('node-redis', ['tryAcquire'], { helperImport: './locksmith', flavor: 'cjs' }), [
      "const { tryAcquire } = require('./locksmith');",
    ]);
    assert.deepEqual(helperCallImports('redis-py', ['release_lock'], { helperImport: 'app.locksmith' }), [
      'from app.locksmith import release_lock',
    ]);
    assert.deepEqual(helperCallImports('redis-rs', ['release_lock', 'Lease'], { helperImport: 'crate::locksmith' }), [
      'use crate::locksmith::{release_lock, Lease};',
    ]);
    assert.deepEqual(helperCallImports('jedis', ['Locksmith'], { helperImport: '' }), []);
    assert.deepEqual(helperCallImports('stackexchange', ['RedisLock'], { helperImport: 'App.Locks' }), [
      'using App.Locks;',
    ]);
  });
});
