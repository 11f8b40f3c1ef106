// Client inference for "Insert Lock Snippet": language, imports, manifests, the remembered choice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENTS } from '../snippets/clients';
import { MANIFEST_GLOBS, rankClients, type InferInput } from '../snippets/infer';

const first = (input: InferInput) => rankClients(input)[0].id;

test('every client is ranked, each exactly once', () => {
  const ranked = rankClients({}).map((client) => client.id);
  assert.deepEqual([...ranked].sort(), CLIENTS.map((client) => client.id).sort());
});

test('the active language alone picks its first client', () => {
  assert.equal(first({ languageId: 'python' }), 'redis-py');
  assert.equal(first({ languageId: 'typescript' }), 'ioredis');
  assert.equal(first({ languageId: 'csharp' }), 'stackexchange');
  assert.equal(first({ languageId: 'rust' }), 'redis-rs');
});

test('a manifest dependency picks between clients of one language', () => {
  const cases: Array<[string, string, string, string]> = [
    ['javascript', 'package.json', '{"dependencies": {"redis": "^4.6.0", "express": "^4"}}', 'node-redis'],
    ['javascript', 'package.json', '{"dependencies": {"ioredis": "^5"}}', 'ioredis'],
    [
      'java',
      'pom.xml',
      '<dependency><groupId>io.lettuce</groupId><artifactId>lettuce-core</artifactId></dependency>',
      'lettuce',
    ],
    ['java', 'build.gradle', "implementation 'redis.clients:jedis:5.1.0'", 'jedis'],
    ['go', 'go.mod', 'require github.com/gomodule/redigo v1.8.9', 'redigo'],
    ['go', 'go.mod', 'require github.com/redis/go-redis/v9 v9.5.1', 'go-redis'],
    ['php', 'composer.json', '{"require": {"predis/predis": "^2.2"}}', 'predis'],
    ['php', 'composer.json', '{"require": {"ext-redis": "*"}}', 'phpredis'],
  ];
  for (const [languageId, name, text, expected] of cases) {
    assert.equal(first({ languageId, manifests: [{ name, text }] }), expected, `${name}: ${text}`);
  }
});

test('Spring Data Redis: the Boot starter or the library in pom.xml or Gradle, or an import of its package', () => {
  const manifests: Array<[string, string]> = [
    [
      'pom.xml',
      '<dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-data-redis</artifactId></dependency>',
    ],
    ['pom.xml', '<dependency>\n  <artifactId>spring-boot-starter-data-redis-reactive</artifactId>\n</dependency>'],
    [
      'pom.xml',
      '<dependency><groupId>org.springframework.data</groupId><artifactId>spring-data-redis</artifactId></dependency>',
    ],
    ['build.gradle', "implementation 'org.springframework.boot:spring-boot-starter-data-redis'"],
    ['build.gradle.kts', 'implementation("org.springframework.data:spring-data-redis:4.1.2")'],
  ];
  for (const [name, text] of manifests) {
    assert.equal(first({ languageId: 'java', manifests: [{ name, text }] }), 'spring-data-redis', `${name}: ${text}`);
  }
  const notSpring: Array<[string, string]> = [
    ['pom.xml', '<artifactId>spring-boot-starter-data-jpa</artifactId>'],
    ['build.gradle', "implementation 'org.springframework.session:spring-session-data-redis'"],
  ];
  for (const [name, text] of notSpring) {
    assert.notEqual(
      first({ languageId: 'java', manifests: [{ name, text }] }),
      'spring-data-redis',
      `${name}: ${text}`,
    );
  }
  const source = 'package app;\n\nimport org.springframework.data.redis.core.StringRedisTemplate;\n';
  const jedisManifest = [{ name: 'pom.xml', text: '<artifactId>jedis</artifactId>' }];
  assert.equal(first({ languageId: 'java', source, manifests: jedisManifest }), 'spring-data-redis');
  assert.equal(first({ languageId: 'java', source: 'import org.springframework.stereotype.Service;\n' }), 'jedis');
});

test('Valkey GLIDE for Node: its package in package.json, or an import or require of it', () => {
  const manifest = (dependencies: string) => [{ name: 'package.json', text: `{"dependencies": {${dependencies}}}` }];
  assert.equal(
    first({ languageId: 'typescript', manifests: manifest('"@valkey/valkey-glide": "^2.5.2"') }),
    'glide-node',
  );
  // A project that also has ioredis (a migration): the file's import decides.
  const both = manifest('"ioredis": "^5", "@valkey/valkey-glide": "2.5.2"');
  for (const source of [
    "import { GlideClusterClient } from '@valkey/valkey-glide';\n",
    "const { GlideClient, Script } = require('@valkey/valkey-glide');\n",
  ]) {
    assert.equal(first({ languageId: 'javascript', source, manifests: both }), 'glide-node', source);
  }
  assert.equal(
    first({ languageId: 'javascript', source: "import Redis from 'ioredis';\n", manifests: both }),
    'ioredis',
  );
  // Other packages of the scope are not the client.
  assert.notEqual(
    first({ languageId: 'typescript', manifests: manifest('"@valkey/valkey-bundle": "1"') }),
    'glide-node',
  );
});

test('Valkey GLIDE for Python: valkey-glide in requirements.txt or pyproject.toml, or an import of glide', () => {
  const manifest = (name: string, text: string) => [{ name, text }];
  assert.equal(
    first({ languageId: 'python', manifests: manifest('requirements.txt', 'valkey-glide==2.5.3\n') }),
    'glide-python',
  );
  assert.equal(
    first({ languageId: 'python', manifests: manifest('pyproject.toml', 'dependencies = ["valkey-glide>=2.5"]\n') }),
    'glide-python',
  );
  // A project that also has redis-py (a migration): the file's import decides.
  const both = manifest('requirements.txt', 'redis==5.0\nvalkey-glide==2.5.3\n');
  for (const source of [
    'from glide import GlideClient, Script\n',
    'import glide\n',
    'from glide.async_commands import core\n',
  ]) {
    assert.equal(first({ languageId: 'python', source, manifests: both }), 'glide-python', source);
  }
  assert.equal(first({ languageId: 'python', source: 'import redis\n', manifests: both }), 'redis-py');
  // The sync package (module glide_sync) is another API: not this helper's client.
  assert.notEqual(
    first({
      languageId: 'python',
      source: 'from glide_sync import GlideClient\n',
      manifests: manifest('requirements.txt', 'valkey-glide-sync==2.5.3\n'),
    }),
    'glide-python',
  );
});

test('Valkey GLIDE for Go: its module in go.mod, or an import of it', () => {
  const goMod = (requires: string) => [{ name: 'go.mod', text: `module app\n\nrequire (\n${requires})\n` }];
  assert.equal(
    first({ languageId: 'go', manifests: goMod('\tgithub.com/valkey-io/valkey-glide/go/v2 v2.5.3\n') }),
    'glide-go',
  );
  // A project that also has go-redis (a migration): the file's import decides.
  const both = goMod('\tgithub.com/redis/go-redis/v9 v9.5.1\n\tgithub.com/valkey-io/valkey-glide/go/v2 v2.5.3\n');
  const source = 'import (\n\tglide "github.com/valkey-io/valkey-glide/go/v2"\n)\n';
  assert.equal(first({ languageId: 'go', source, manifests: both }), 'glide-go');
  assert.equal(
    first({ languageId: 'go', source: 'import "github.com/redis/go-redis/v9"\n', manifests: both }),
    'go-redis',
  );
});

test('Valkey GLIDE for Java: its artifact in pom.xml or Gradle, or an import of glide.api', () => {
  const pom = '<dependency>\n  <groupId>io.valkey</groupId>\n  <artifactId>valkey-glide</artifactId>\n</dependency>';
  assert.equal(first({ languageId: 'java', manifests: [{ name: 'pom.xml', text: pom }] }), 'glide-java');
  for (const name of ['build.gradle', 'build.gradle.kts']) {
    const text = 'implementation("io.valkey:valkey-glide:2.1.0:linux-x86_64")';
    assert.equal(first({ languageId: 'java', manifests: [{ name, text }] }), 'glide-java', name);
  }
  // A project that also has Jedis (a migration): the file's import decides.
  const both = [{ name: 'pom.xml', text: `<artifactId>jedis</artifactId>\n${pom}` }];
  assert.equal(
    first({ languageId: 'java', source: 'import glide.api.GlideClusterClient;\n', manifests: both }),
    'glide-java',
  );
  assert.equal(
    first({ languageId: 'java', source: 'import redis.clients.jedis.JedisPooled;\n', manifests: both }),
    'jedis',
  );
  // Nothing names GLIDE: a Java file still gets Jedis.
  assert.equal(first({ languageId: 'java', source: 'import java.util.List;\n' }), 'jedis');
});

test('requirements.txt: redis counts, redis-om and hiredis-only do not', () => {
  const python = (text: string) => rankClients({ manifests: [{ name: 'requirements.txt', text }] })[0].id;
  assert.equal(python('flask==3.0\nredis[hiredis]>=5.0\n'), 'redis-py');
  assert.equal(python('redis\n'), 'redis-py');
  assert.notEqual(python('redis-om==0.3\nhiredis\n'), 'redis-py');
});

test('an .csproj file of any name counts', () => {
  const manifests = [
    { name: 'Orders.Api.csproj', text: '<PackageReference Include="StackExchange.Redis" Version="2.8.0" />' },
  ];
  assert.equal(first({ manifests }), 'stackexchange');
  assert.ok(MANIFEST_GLOBS.includes('*.csproj'));
});

test('an import in the active file beats the manifest and the remembered choice', () => {
  const manifests = [{ name: 'package.json', text: '{"dependencies": {"ioredis": "^5", "redis": "^4"}}' }];
  const source = "import { createClient } from 'redis';\n";
  assert.equal(first({ languageId: 'typescript', source, manifests, remembered: 'ioredis' }), 'node-redis');
});

test('the remembered choice beats a manifest, but not the active language', () => {
  const manifests = [{ name: 'package.json', text: '{"dependencies": {"ioredis": "^5"}}' }];
  assert.equal(first({ languageId: 'javascript', manifests, remembered: 'node-redis' }), 'node-redis');
  assert.equal(first({ languageId: 'python', manifests, remembered: 'node-redis' }), 'redis-py');
});

test('evidence for another language only orders the rest', () => {
  const manifests = [{ name: 'go.mod', text: 'require github.com/gomodule/redigo v1.8.9' }];
  const ranked = rankClients({ languageId: 'python', manifests }).map((client) => client.id);
  assert.deepEqual(ranked.slice(0, 2), ['redis-py', 'glide-python']);
  assert.equal(ranked[2], 'redigo');
});
