// The linter stays silent on everything the helper generator writes: every client's helper module
// (each JavaScript flavor) and every call site (in a file that imports its client library, as a
// user's would), run through the language server's analysis. Each text mentions Redis, so the
// analysis parses it instead of skipping it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadPack } from '../pack/pack';
import { analyzeText } from '../server/src/analysis';
import { MENTIONS_REDIS } from '../server/src/analysis/ops';
import { LINTED_LANGUAGES } from '../server/src/languages';
import { DEFAULT_HELPER_IMPORT, renderCallSite } from '../snippets/callsite';
import { CLIENTS } from '../snippets/clients';
import { renderHelper } from '../snippets/helper';
import { PATTERNS } from '../snippets/patterns';
import { JS_FLAVORS } from '../snippets/template';

const pack = loadPack();

/** The line a user's file has before a call site: the client library's import. */
const PRELUDE: Record<string, string> = {
  ioredis: "import Redis from 'ioredis';",
  'node-redis': "import { createClient } from 'redis';",
  // MENTIONS_REDIS does not know Valkey: the host's name (a compose service's) is what mentions Redis here.
  'glide-node':
    "import { GlideClient } from '@valkey/valkey-glide';\nconst client = await GlideClient.createClient({ addresses: [{ host: 'redis' }] });",
  'glide-go':
    'import glide "github.com/valkey-io/valkey-glide/go/v2"\nvar address = &config.NodeAddress{Host: "redis", Port: 6379}',
  'redis-py': 'import redis',
  'glide-python':
    'from glide import GlideClient, GlideClientConfiguration, NodeAddress\nclient = await GlideClient.create(GlideClientConfiguration([NodeAddress("redis")]))',
  'glide-java':
    'import glide.api.GlideClient;\nGlideClient client = GlideClient.createClient(GlideClientConfiguration.builder().address(NodeAddress.builder().host("redis").build()).build()).get();',
  jedis: 'import redis.clients.jedis.JedisPooled;',
  lettuce: 'import io.lettuce.core.RedisClient;',
  'spring-data-redis': 'import org.springframework.data.redis.core.StringRedisTemplate;',
  'go-redis': 'import "github.com/redis/go-redis/v9"',
  redigo: 'import "github.com/gomodule/redigo/redis"',
  stackexchange: 'using StackExchange.Redis;',
  phpredis: '<?php\n$redis = new Redis();',
  predis: '<?php\n$client = new Predis\\Client();',
  'redis-rb': "require 'redis'",
};

/** What the linter reports, as `code: message` lines (empty when silent). */
async function findings(languageId: string, text: string): Promise<string[]> {
  return (await analyzeText(languageId, text)).map(
    (finding) => `${finding.code} at ${finding.start}: ${finding.message} (${text.slice(finding.start, finding.end)})`,
  );
}

for (const client of CLIENTS) {
  const languageIds = client.languageIds.filter((id) => (LINTED_LANGUAGES as readonly string[]).includes(id));
  if (languageIds.length === 0) continue;
  describe(`${client.id}: no findings`, () => {
    const flavors = client.extension === 'js' ? JS_FLAVORS.map((flavor) => ({ flavor })) : [{}];
    for (const options of flavors) {
      const helper = renderHelper(client.id, pack, options);
      const languageId = helper.fileName.endsWith('.ts') ? 'typescript' : languageIds[0];
      test(`helper ${helper.fileName} ${JSON.stringify(helper.options)}`, async () => {
        assert.match(helper.text, MENTIONS_REDIS);
        assert.deepEqual(await findings(languageId, helper.text), []);
      });
    }
    for (const pattern of PATTERNS) {
      test(`call site ${pattern}`, async () => {
        const site = renderCallSite(client.id, pattern, {}, { helperImport: DEFAULT_HELPER_IMPORT[client.id] });
        const text = `${PRELUDE[client.id]}\n${site.imports.join('\n')}\n${site.code}`;
        assert.match(text, MENTIONS_REDIS);
        for (const languageId of languageIds) assert.deepEqual(await findings(languageId, text), [], languageId);
      });
    }
  });
}
