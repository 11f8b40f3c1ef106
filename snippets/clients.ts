// The client libraries snippets exist for. Each one's code lives in templates/<id>/<pattern>.<ext>.
export interface ClientInfo {
  id: string;
  library: string;
  language: string;
  /** Extension of its template files. */
  extension: string;
  /** VS Code language ids whose files this client's snippets are for. */
  languageIds: string[];
  /** One line for the client picker. */
  description: string;
  /** A string literal of `text` in the client's language. */
  quote: (text: string) => string;
  /** What the body slot shows until the user types the guarded code. */
  defaultBody: string;
  /** The templates' name for the client object itself, where they use one (not a pool). */
  clientVariable?: string;
  /** What call sites name the object they pass to the helper (a client, a pool, a connection). */
  callSiteVariable: string;
  /** The language's line comment, which starts every line of a helper's header. */
  comment: '//' | '#';
  /** Whether the helper's import may stand inside a function body, so a snippet can carry it. */
  importsInline: boolean;
  /** The family whose partials (templates/_<family>/) its helper template includes. */
  family?: 'js' | 'jvm' | 'go' | 'php';
}

const doubleQuoted = (text: string) => JSON.stringify(text);
const singleQuoted = (text: string) => `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
const JS_IDS = ['javascript', 'javascriptreact', 'typescript', 'typescriptreact'];
const SECTION = 'critical section: only one holder runs this at a time';

export const CLIENTS: readonly ClientInfo[] = [
  {
    id: 'ioredis',
    library: 'ioredis',
    language: 'JavaScript/TypeScript',
    extension: 'js',
    languageIds: JS_IDS,
    description: 'ioredis: defineCommand runs the scripts with EVALSHA and reloads them on NOSCRIPT',
    quote: singleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'redis',
    callSiteVariable: 'redis',
    comment: '//',
    importsInline: false,
    family: 'js',
  },
  {
    id: 'node-redis',
    library: 'redis (node-redis v4+)',
    language: 'JavaScript/TypeScript',
    extension: 'js',
    languageIds: JS_IDS,
    description: 'node-redis: defineScript in createClient, EVALSHA with a NOSCRIPT fallback',
    quote: singleQuoted,
    defaultBody: `// ${SECTION}`,
    callSiteVariable: 'redis',
    comment: '//',
    importsInline: false,
    family: 'js',
  },
  {
    id: 'glide-node',
    library: 'Valkey GLIDE for Node',
    language: 'JavaScript/TypeScript',
    extension: 'js',
    languageIds: JS_IDS,
    description: 'Valkey GLIDE (Node): Script objects run with invokeScript (EVALSHA, loaded again on NOSCRIPT)',
    quote: singleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'client',
    callSiteVariable: 'client',
    comment: '//',
    importsInline: false,
    family: 'js',
  },
  {
    id: 'redis-py',
    library: 'redis-py',
    language: 'Python',
    extension: 'py',
    languageIds: ['python'],
    description: 'redis-py: register_script (EVALSHA, loads on NOSCRIPT); asyncio works the same with await',
    quote: doubleQuoted,
    defaultBody: `pass  # ${SECTION}`,
    clientVariable: 'redis_client',
    callSiteVariable: 'r',
    comment: '#',
    importsInline: true,
  },
  {
    id: 'glide-python',
    library: 'Valkey GLIDE for Python',
    language: 'Python',
    extension: 'py',
    languageIds: ['python'],
    description:
      'Valkey GLIDE (Python, asyncio): Script objects run with invoke_script (EVALSHA, loaded again on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `pass  # ${SECTION}`,
    clientVariable: 'client',
    callSiteVariable: 'client',
    comment: '#',
    importsInline: true,
  },
  {
    id: 'jedis',
    library: 'Jedis',
    language: 'Java',
    extension: 'java',
    languageIds: ['java'],
    description: 'Jedis: EVALSHA on a JedisPool with an EVAL fallback on NOSCRIPT',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    callSiteVariable: 'jedis',
    comment: '//',
    importsInline: false,
    family: 'jvm',
  },
  {
    id: 'lettuce',
    library: 'Lettuce',
    language: 'Java',
    extension: 'java',
    languageIds: ['java'],
    description: 'Lettuce: EVALSHA through RedisCommands with an EVAL fallback on NOSCRIPT',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'redis',
    callSiteVariable: 'redis',
    comment: '//',
    importsInline: false,
    family: 'jvm',
  },
  {
    id: 'spring-data-redis',
    library: 'Spring Data Redis',
    language: 'Java',
    extension: 'java',
    languageIds: ['java'],
    description: 'Spring Data Redis: RedisScript through StringRedisTemplate.execute (EVALSHA, EVAL on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'redisTemplate',
    callSiteVariable: 'redisTemplate',
    comment: '//',
    importsInline: false,
  },
  // After the other Java clients: a Java file with no other evidence gets Jedis.
  {
    id: 'glide-java',
    library: 'Valkey GLIDE for Java',
    language: 'Java',
    extension: 'java',
    languageIds: ['java'],
    description: 'Valkey GLIDE (Java): Script objects run with invokeScript (EVALSHA, loaded again on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'client',
    callSiteVariable: 'client',
    comment: '//',
    importsInline: false,
    // No family: its template names the _jvm partials it shares, and the family's parts (proven on
    // Jedis and Lettuce) are not offered to it until they run against GLIDE.
  },
  {
    id: 'go-redis',
    library: 'go-redis v9',
    language: 'Go',
    extension: 'go',
    languageIds: ['go'],
    description: 'go-redis v9: redis.NewScript (EVALSHA, EVAL on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'rdb',
    callSiteVariable: 'rdb',
    comment: '//',
    importsInline: false,
    family: 'go',
  },
  {
    id: 'redigo',
    library: 'redigo',
    language: 'Go',
    extension: 'go',
    languageIds: ['go'],
    description: 'redigo: redis.NewScript (EVALSHA, EVAL on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    callSiteVariable: 'pool',
    comment: '//',
    importsInline: false,
    family: 'go',
  },
  {
    id: 'glide-go',
    library: 'Valkey GLIDE for Go',
    language: 'Go',
    extension: 'go',
    languageIds: ['go'],
    description:
      'Valkey GLIDE (Go): options.NewScript run with InvokeScriptWithOptions (EVALSHA, loaded again on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'client',
    callSiteVariable: 'client',
    comment: '//',
    importsInline: false,
    family: 'go',
  },
  {
    id: 'stackexchange',
    library: 'StackExchange.Redis',
    language: 'C#',
    extension: 'cs',
    languageIds: ['csharp'],
    description: 'StackExchange.Redis: ScriptEvaluateAsync (SCRIPT LOAD, EVALSHA), retried once on NOSCRIPT',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: 'db',
    callSiteVariable: 'db',
    comment: '//',
    importsInline: false,
  },
  {
    id: 'phpredis',
    library: 'phpredis extension',
    language: 'PHP',
    extension: 'php',
    languageIds: ['php'],
    description: 'phpredis: evalSha with an eval fallback on NOSCRIPT',
    quote: singleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: '$redis',
    callSiteVariable: '$redis',
    comment: '//',
    importsInline: true,
    family: 'php',
  },
  {
    id: 'predis',
    library: 'Predis',
    language: 'PHP',
    extension: 'php',
    languageIds: ['php'],
    description: 'Predis: ScriptCommand (EVALSHA, resent as EVAL on NOSCRIPT); renewal between body steps',
    quote: singleQuoted,
    defaultBody: `// ${SECTION}`,
    clientVariable: '$client',
    callSiteVariable: '$client',
    comment: '//',
    importsInline: true,
    family: 'php',
  },
  {
    id: 'redis-rb',
    library: 'redis-rb',
    language: 'Ruby',
    extension: 'rb',
    languageIds: ['ruby'],
    description: 'redis-rb: evalsha with an eval fallback on NOSCRIPT',
    quote: singleQuoted,
    defaultBody: `# ${SECTION}`,
    clientVariable: 'redis',
    callSiteVariable: 'redis',
    comment: '#',
    importsInline: true,
  },
  {
    id: 'redis-rs',
    library: 'redis-rs',
    language: 'Rust',
    extension: 'rs',
    languageIds: ['rust'],
    description: 'redis-rs: redis::Script (EVALSHA, loads on NOSCRIPT)',
    quote: doubleQuoted,
    defaultBody: `// ${SECTION}`,
    callSiteVariable: 'con',
    comment: '//',
    importsInline: true,
  },
];
