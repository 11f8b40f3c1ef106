// Redis lock operations found in a syntax tree. A text scan finds the few places worth looking
// at (method names and command strings the rules care about), the tree confirms each one is a
// call and reads its arguments: walking every node of a 10,000-line file would cost more than
// parsing it.
import type { Node } from '@vscode/tree-sitter-wasm';
import { isConstant, unwrap, words, type Arg, type Call, type Syntax } from './syntax';
import { firstElement, RELEASE_NAME, scriptRunOf } from './scripts';
import { pathTo } from './tree';
import { durationMs, timeUnitMs } from './values';

export type OpKind =
  | 'acquire'
  | 'expire'
  | 'del'
  | 'get'
  | 'getset'
  | 'multi'
  | 'watch'
  | 'incr'
  | 'extend'
  /** A plain SET (no NX): the write of an optimistic acquire when it runs in a WATCH transaction on its key. */
  | 'set'
  /** A compare-and-delete release run as a script: EVAL/EVALSHA, a registered script, a project helper. */
  | 'scriptRelease';

export interface RedisOp {
  kind: OpKind;
  call: Call;
  /** The call's ancestors, from the scanned scope down to the call itself. */
  path?: Node[];
  /** The key argument, and its text with whitespace and `this.`/`self.` removed. */
  key?: Node;
  keyText?: string;
  value?: Node;
  /** acquire: the command sets an expiry itself. */
  hasExpiry?: boolean;
  /** acquire: the value is a constant literal. */
  constantValue?: boolean;
  /** The lease in ms as an expression of the user's code (`30000`, `ttl * 1000`), when one is given. */
  ttlMs?: string;
  /**
   * scriptRelease: the name of the script when nothing at the call says it releases
   * (`redis.eval(SCRIPT, ...)`): the file's declarations tell.
   */
  scriptName?: string;
}

/** What a call's name says: an operation, a SET whose options decide, or a script run whose script decides. */
type Command = Exclude<OpKind, 'scriptRelease'> | 'stringset' | 'script';

const METHODS: Record<string, Command> = {
  setnx: 'acquire',
  setifabsent: 'acquire',
  // StackExchange.Redis: SET NX with an expiry; LockRelease is its compare-and-delete (a script release).
  locktake: 'acquire',
  set: 'set',
  setargs: 'set',
  // Valkey GLIDE for Go: SetWithOptions(ctx, key, value, *options.NewSetOptions().SetOnlyIfDoesNotExist()...).
  setwithoptions: 'set',
  stringset: 'stringset',
  expire: 'expire',
  pexpire: 'expire',
  expireat: 'expire',
  pexpireat: 'expire',
  keyexpire: 'expire',
  del: 'del',
  delete: 'del',
  unlink: 'del',
  keydelete: 'del',
  get: 'get',
  stringget: 'get',
  getset: 'getset',
  getandset: 'getset',
  stringgetset: 'getset',
  multi: 'multi',
  pipeline: 'multi',
  pipelined: 'multi',
  txpipeline: 'multi',
  txpipelined: 'multi',
  createtransaction: 'multi',
  transaction: 'multi',
  watch: 'watch',
  addcondition: 'watch',
  incr: 'incr',
  incrby: 'incr',
  incrbyfloat: 'incr',
  decr: 'incr',
  decrby: 'incr',
  stringincrement: 'incr',
  increment: 'incr',
  // Project wrappers around a client (`redisUtil.deleteKey(k)`): counted only on a Redis-named receiver.
  deletekey: 'del',
  delkey: 'del',
  deleteobject: 'del',
  removekey: 'del',
  remove: 'del',
  getstring: 'get',
  getvalue: 'get',
  eval: 'script',
  evalsha: 'script',
  eval_ro: 'script',
  evalsha_ro: 'script',
  evalro: 'script',
  evalsharo: 'script',
  scriptevaluate: 'script',
  run: 'script',
  evaluate: 'script',
  // Valkey GLIDE: invokeScript(script, { keys, args }), invoke_script(script, keys=..., args=...), InvokeScript(ctx, script).
  invokescript: 'script',
  invoke_script: 'script',
  invokescriptwithoptions: 'script',
};

/** Method names that only a Redis client has: they count in any file, not only in files that mention Redis. */
const REDIS_ONLY = new Set([
  'setnx',
  'getset',
  'pexpire',
  'pexpireat',
  'stringgetset',
  'keyexpire',
  'setifabsent',
  'locktake',
]);
/** Wrapper names too generic to count unless the receiver is named like a Redis client. */
const WRAPPER_ONLY = new Set(['deletekey', 'delkey', 'deleteobject', 'removekey', 'remove', 'getstring', 'getvalue']);
const REDIS_RECEIVER = /redis|jedis|lettuce|predis|rdb|cache|valkey|glide/i;
/** A receiver that is a Redis client whatever else its name says (`localRedis`). */
const REDIS_CLIENT = /redis|jedis|lettuce|predis|rdb|valkey|keydb|glide/i;
/** A receiver named for data in this process: a map, an LRU, a memory cache, a fallback store. */
const IN_PROCESS =
  /(?:^|[^a-z])(?:local|memory|inmemory|in_memory|mem|lru|fallback|map|dict|hash|heap)(?![a-z])|(?:Local|Memory|Lru|LRU|Map|Dict|Fallback)(?![a-z])/;
/** A Go context argument: `ctx`, `c`, `context.Background()`, `context.WithoutCancel(ctx)`, `r.Context()`, `tctx`. */
const GO_CONTEXT = /^(?:\w*ctx|c|context\.\w+\([\w.]*\)|[\w.]*\.Context\(\))$/i;
const MAP_DELETE_GRAMMARS: ReadonlySet<string> = new Set(['javascript', 'typescript', 'tsx', 'ruby']);

const COMMANDS: Record<string, Command> = {
  setnx: 'acquire',
  set: 'set',
  expire: 'expire',
  pexpire: 'expire',
  expireat: 'expire',
  pexpireat: 'expire',
  del: 'del',
  unlink: 'del',
  get: 'get',
  getset: 'getset',
  multi: 'multi',
  watch: 'watch',
  incr: 'incr',
  incrby: 'incr',
  decr: 'incr',
  eval: 'script',
  evalsha: 'script',
};

/** Methods that take the command name as their first argument. */
const GENERIC = new Set([
  'call',
  'sendcommand',
  'send_command',
  'executecommand',
  'execute_command',
  'do',
  'send',
  'rawcommand',
  'execute',
  'executeraw',
  'command',
  // Valkey GLIDE: custom_command(["SET", k, v, "NX"]), customCommand([...]), CustomCommand(ctx, []string{...}).
  'custom_command',
  'customcommand',
]);

const METHOD_NAMES = Object.keys(METHODS).join('|');
/**
 * Script runners besides EVAL: helpers named like a release, Spring's execute(script, ...) and
 * redigo's script.Do(conn, ...) when a script is named there (a cursor's execute is no script).
 */
const SCRIPT_RUNNERS =
  '\\w*(?:release|unlock)\\w*|execute(?=\\s*\\(\\s*(?:new\\s+)?[\\w.]*(?:script|lua|release|unlock))|(?<=(?:script|lua|release|unlock)\\w*\\s*\\.\\s*)do';
const REDIS_ONLY_NAMES = [...REDIS_ONLY].join('|');
const COMMAND_NAMES = Object.keys(COMMANDS).join('|');
/** `.setnx`, `->del`, `.StringSetAsync`, and command strings `"SETNX"`, `'del'`. */
const CANDIDATE = new RegExp(
  `(?:\\.|->|::)\\s*(${METHOD_NAMES}|${SCRIPT_RUNNERS})(?:async)?\\b|\\.\\s*\\w+\\s*\\(\\s*keys\\s*=|(['"])(${COMMAND_NAMES})\\2`,
  'gi',
);

/** The same, for files that do not mention Redis: only Redis-only method names. */
const REDIS_ONLY_CANDIDATE = new RegExp(`(?:\\.|->|::)\\s*(${REDIS_ONLY_NAMES})(?:async)?\\b`, 'gi');

/**
 * A method named like a Redis-only command declared or called without a receiver (`abstract Long
 * setnx(String key, String value);`, `def setnx(key, value)`, `setnx(key, v)`): the code's own
 * methods stand for Redis commands, implemented elsewhere on a client.
 */
export const OWN_COMMANDS = /(?<![\w$.>:])(?:setnx|set_nx|getset|get_set|setifabsent|pexpire)\s*\(/i;
/** Grammars where a class calls its own methods without a receiver (`setnx(key, v)` in Java, C#, Ruby). */
const IMPLICIT_RECEIVER: ReadonlySet<string> = new Set(['java', 'c-sharp', 'ruby']);
/** Calls without a receiver of the commands a class may declare as its own. */
const BARE_CANDIDATE =
  /(?<![\w$.>:@])(setnx|setifabsent|set|expire|pexpire|expireat|pexpireat|del|delete|unlink|get|getset|getandset|incr|incrby|decr|decrby|watch|multi)(?:async)?(?:\s*\(|[ \t]+(?=[\w@:'"]))/gi;

/**
 * Whether generic names (get, set, del) can mean Redis here at all: a Redis client's name, Valkey
 * (`@valkey/valkey-glide`, `valkey-go`, `import valkey`) or Valkey GLIDE (`from glide import`,
 * `glide.api.GlideClient`, `glide_sync`).
 */
export const MENTIONS_REDIS =
  /redis|jedis|lettuce|predis|stackexchange|valkey|\bglide(?:_sync)?\b|Glide(?:Cluster)?Client/i;
/** A method name that only a Redis client has, anywhere in a text. */
export const MENTIONS_REDIS_ONLY_METHOD = new RegExp(`(?:\\.|->|::)\\s*(?:${REDIS_ONLY_NAMES})\\b`, 'i');

/** GLIDE's SET NX: `ConditionalChange.ONLY_IF_DOES_NOT_EXIST`, `'onlyIfDoesNotExist'`, `conditionalSetOnlyIfNotExist()`. */
const GLIDE_NX = [
  'only_if_does_not_exist',
  'onlyifdoesnotexist',
  'setonlyifdoesnotexist',
  'conditionalsetonlyifnotexist',
];
const EXPIRY_WORDS = new Set([
  'ex',
  'px',
  'exat',
  'pxat',
  'keepttl',
  'expiration',
  'expiry',
  'ttl',
  'timeout',
  'expire',
  // GLIDE for Go: options.NewSetOptions().SetExpiry(options.NewExpiryIn(d)).
  'setexpiry',
]);
const CLOCK = /time|now|millis|clock|expire|deadline|timestamp|unix|date/i;

export function keyText(node: Node): string {
  return node.text.replace(/\s+/g, '').replace(/^(?:this\.|self\.|\$this->|@)/, '');
}

function stringContent(node: Node): string | undefined {
  const value = unwrap(node);
  if (!/string/.test(value.type) || !isConstant(value)) return undefined;
  return value.text.replace(/^[a-zA-Z@$]*(['"`]+)([\s\S]*?)\1$/, '$2');
}

/** `amount` (an expression) in milliseconds: literals are converted, expressions multiplied. */
function milliseconds(node: Node | undefined, unit: 's' | 'ms'): string | undefined {
  if (!node) return undefined;
  const text = unwrap(node).text;
  const digits = text.replace(/_/g, '').replace(/[lL]$/, '');
  if (/^\d+$/.test(digits)) return String(unit === 's' ? Number(digits) * 1000 : Number(digits));
  // Only simple expressions (names, fields, products): anything else keeps the snippet's default.
  if (!/^[\w$.>@ *-]+$/.test(text)) return undefined;
  return unit === 's' ? `${text} * 1000` : text;
}

/** Reads a call's command: from the method name, or the first argument of a generic call. */
function commandOf(
  syntax: Syntax,
  call: Call,
): { kind: Command; name: string; args: Arg[]; generic: boolean } | undefined {
  const method = call.nameNode.text.toLowerCase().replace(/async$/, '');
  // go-redis passes a context first; a project's own wrapper (`store.SetNX(key, value, ttl)`) may not.
  const args =
    syntax.grammar === 'go' && call.args.length > 1 && GO_CONTEXT.test(call.args[0].value.text)
      ? call.args.slice(1)
      : call.args;
  if (GENERIC.has(method)) {
    let generic = call.args;
    // go-redis rdb.Do(ctx, "SET", ...)
    if (syntax.grammar === 'go' && generic[0] && !stringContent(generic[0].value)) generic = generic.slice(1);
    // node-redis sendCommand(['SET', key, ...]), Predis executeRaw([...]), GLIDE's custom command in each binding.
    const list = generic.length === 1 ? commandList(generic[0].value) : undefined;
    if (list) generic = list.map((value) => ({ node: value, value: unwrap(value) }));
    const first = generic[0] && stringContent(generic[0].value)?.toLowerCase();
    const kind = first ? COMMANDS[first] : undefined;
    if (kind) return { kind, name: first!, args: generic.slice(1), generic: true };
    // Spring's redisTemplate.execute(script, keys, args...), redigo's script.Do(conn, keys...).
    return method === 'execute' || method === 'do' ? { kind: 'script', name: method, args, generic: false } : undefined;
  }
  const kind = METHODS[method];
  if (!kind) {
    // A project's release helper or a registered script: releaseLock(key, token), self._release(keys=[k], args=[t]).
    const script = RELEASE_NAME.test(method) || args.some((arg) => arg.name === 'keys');
    return script ? { kind: 'script', name: method, args, generic: false } : undefined;
  }
  const receiver = call.receiver?.text ?? '';
  // `this.local.delete(key)`, `localCache.remove(key)`, `_memoryCache.Remove(key)`: a map or cache in this process.
  if (IN_PROCESS.test(receiver) && !REDIS_CLIENT.test(receiver)) return undefined;
  if (WRAPPER_ONLY.has(method) && !REDIS_RECEIVER.test(receiver)) return undefined;
  // JavaScript's and Ruby's Redis clients say `del`: `delete` there is a Map's, a Set's or a Hash's.
  if (method === 'delete' && MAP_DELETE_GRAMMARS.has(syntax.grammar) && !REDIS_RECEIVER.test(call.receiver?.text ?? ''))
    return undefined;
  return { kind, name: method, args, generic: false };
}

/**
 * The elements of a command written as one list: `['SET', k]` (JavaScript), `["SET", k]` (Python),
 * `[]string{"SET", k}` (Go), `new String[] {"SET", k}` (Java).
 */
function commandList(node: Node): Node[] | undefined {
  let list = unwrap(node);
  if (list.type === 'composite_literal') list = list.childForFieldName('body') ?? list;
  else if (list.type === 'array_creation_expression') list = list.childForFieldName('value') ?? list;
  if (!/^(?:array|list|literal_value|array_initializer)$/.test(list.type)) return undefined;
  return list.namedChildren
    .filter((c): c is Node => !!c && !c.type.includes('comment'))
    .map((element) => (element.type === 'literal_element' ? (element.namedChild(0) ?? element) : element));
}

function ttlFromOptions(options: Arg[]): string | undefined {
  for (let i = 0; i < options.length; i++) {
    const option = options[i];
    const word = option.name ?? stringContent(option.value)?.toLowerCase();
    const valueNode = option.name ? option.value : options[i + 1]?.value;
    if (word === 'px') return milliseconds(valueNode, 'ms');
    if (word === 'ex') return milliseconds(valueNode, 's');
  }
  return undefined;
}

function toOp(syntax: Syntax, call: Call): RedisOp | undefined {
  const command = commandOf(syntax, call);
  if (!command) return undefined;
  const { args } = command;
  const key = args[0]?.value;
  const base = { call, key, keyText: key && keyText(key) };
  switch (command.kind) {
    case 'script': {
      const run = scriptRunOf(syntax, call, command.name, args, (node) => resolve(syntax, node));
      if (!run) return undefined;
      if (run.kind === 'extend') return { kind: 'extend', call };
      const { key: scriptKey, scriptName } = run;
      return scriptKey
        ? { kind: 'scriptRelease', call, key: scriptKey, keyText: keyText(scriptKey), scriptName }
        : undefined;
    }
    case 'multi':
    case 'extend':
      return { kind: command.kind, call };
    case 'watch':
      return { kind: 'watch', call, key, keyText: key && keyText(key) };
    case 'incr':
      return key ? { ...base, kind: 'incr' } : undefined;
    case 'del': {
      // Predis del([$key]), node-redis del([key]), KeyDelete(new RedisKey[] { key }): the keys in a list.
      const first = key && firstElement(key);
      return first ? { call, key: first, keyText: keyText(first), kind: 'del' } : undefined;
    }
    case 'expire':
    case 'get':
      // go-redis takes a time.Duration: its lease is not carried over.
      if (command.kind === 'expire' && syntax.grammar === 'go' && !command.generic)
        return key ? { ...base, kind: 'expire' } : undefined;
      return key
        ? {
            ...base,
            kind: command.kind,
            ttlMs:
              command.kind === 'expire'
                ? milliseconds(args[1]?.value, command.name.startsWith('p') ? 'ms' : 's')
                : undefined,
          }
        : undefined;
    case 'getset':
      return key ? { ...base, kind: 'getset', value: args[1]?.value } : undefined;
    case 'acquire':
    case 'set':
    case 'stringset': {
      if (!key || args.length < 2) return undefined;
      const value = args[1].value;
      const options = args.slice(2);
      const optionWords = new Set(
        options.flatMap((option) => [...(option.name ? [option.name] : []), ...words(resolve(syntax, option.value))]),
      );
      let hasExpiry: boolean;
      let exclusive = true;
      if (command.kind === 'set') {
        exclusive =
          optionWords.has('nx') || optionWords.has('notexists') || GLIDE_NX.some((word) => optionWords.has(word));
        hasExpiry = [...EXPIRY_WORDS].some((word) => optionWords.has(word));
      } else if (command.kind === 'stringset') {
        exclusive = optionWords.has('notexists');
        // StringSet(key, value, expiry, when): any argument besides when/flags/null is the expiry.
        hasExpiry = options.some((option) => {
          const text = option.value.text;
          return option.name === 'expiry'
            ? text !== 'null'
            : !option.name && !/^(When|CommandFlags)\.|^null$|^default$/.test(text);
        });
      } else {
        // SETNX has no expiry; go-redis SetNX(ctx, key, value, expiration) and Spring
        // setIfAbsent(key, value, timeout) take one (0 means none).
        const expiry = options[0]?.value;
        hasExpiry = !!expiry && expiry.text !== '0';
      }
      // A plain SET takes nothing, unless a WATCH transaction makes it the write of an optimistic acquire.
      if (!exclusive) return { ...base, kind: 'set', value, hasExpiry };
      return {
        ...base,
        kind: 'acquire',
        value,
        hasExpiry,
        constantValue: isConstant(value),
        ttlMs: ttlFromOptions(options) ?? (hasExpiry ? literalLease(options) : undefined),
      };
    }
  }
}

/**
 * A lease written as a literal where `ttlFromOptions` does not look: a duration (go-redis
 * `SetNX(ctx, k, v, 30*time.Second)`, `TimeSpan.FromSeconds(30)`, Spring `Duration.ofSeconds(30)`
 * or `30, TimeUnit.SECONDS`), Jedis `.px(45_000)`, phpredis `['nx', 'px' => 15000]`, node-redis
 * `{ NX: true, PX: 60_000 }`. The fix keeps it rather than the helper's default.
 */
function literalLease(options: Arg[]): string | undefined {
  const timed = options.length === 2 ? timeUnitMs(options[0].value.text, options[1].value.text) : Number.NaN;
  if (Number.isInteger(timed) && timed > 0) return String(timed);
  for (const { value } of options) {
    const duration = durationMs(value.text);
    if (Number.isInteger(duration) && duration > 0) return String(duration);
    const option = /\b(px|ex)['"]?\s*(?:=>|\(|:)\s*([\d_]+)\s*\)?/i.exec(value.text);
    if (option) return String(Number(option[2].replace(/_/g, '')) * (option[1].toLowerCase() === 'ex' ? 1000 : 1));
  }
  return undefined;
}

/** An options variable's initializer (`args := redis.SetArgs{...}`) in the same function, or the node itself. */
export function resolve(syntax: Syntax, node: Node): Node {
  // Go's `*setOptions` (GLIDE takes its options by value): the variable's initializer.
  const operand =
    node.type === 'unary_expression' && /^[*&]/.test(node.text) ? node.childForFieldName('operand') : null;
  if (operand?.type === 'identifier') return resolve(syntax, operand);
  if (!/^(identifier|variable_name)$/.test(node.type)) return node;
  let scope: Node | null = node.parent;
  while (scope?.parent && !syntax.functions.has(scope.type)) scope = scope.parent;
  if (!scope) return node;
  for (const declaration of scope.descendantsOfType([
    'short_var_declaration',
    'variable_declarator',
    'assignment',
    'assignment_expression',
  ])) {
    if (!declaration || declaration.startIndex > node.startIndex) continue;
    const target = declaration.childForFieldName('name') ?? declaration.childForFieldName('left');
    const value = declaration.childForFieldName('value') ?? declaration.childForFieldName('right');
    if (target && value && target.text === node.text) return value;
  }
  return node;
}

/**
 * Every lock-relevant Redis operation inside `scope` (a unit of the tree), in source order.
 * `text` is the document; only the scope's part of it is scanned. Without `mentionsRedis` only
 * method names that nothing but a Redis client has count; with `ownCommands` (the code declares
 * its own `setnx`, `del`...) calls of them without a receiver count too.
 */
export function findOps(
  syntax: Syntax,
  scope: Node,
  text: string,
  mentionsRedis: boolean,
  ownCommands = false,
): RedisOp[] {
  const ops: RedisOp[] = [];
  const seen = new Set<number>();
  const part = text.slice(scope.startIndex, scope.endIndex);
  const patterns = [mentionsRedis ? CANDIDATE : REDIS_ONLY_CANDIDATE];
  // Only code that mocks can hold a test double's stubbing: the check is skipped elsewhere.
  const mocks = MOCKING.test(part);
  if (ownCommands && IMPLICIT_RECEIVER.has(syntax.grammar)) patterns.push(BARE_CANDIDATE);
  for (const pattern of patterns) {
    for (const match of part.matchAll(pattern)) {
      const start = scope.startIndex + (match[2] ? match.index : match.index + match[0].search(/[\w$]/));
      const op = opAt(syntax, scope, start, !!match[2], seen, mocks);
      if (op) ops.push(op);
    }
  }
  return ops.sort((a, b) => a.call.nameNode.startIndex - b.call.nameNode.startIndex);
}

/** The operation of the call named at `start` (or whose command string starts there), read once per call. */
function opAt(
  syntax: Syntax,
  scope: Node,
  start: number,
  commandString: boolean,
  seen: Set<number>,
  mocks: boolean,
): RedisOp | undefined {
  const found = scope.descendantForIndex(start);
  // The ancestors in one cursor walk from the scope (every `.parent` searches from the tree's root).
  const path = found ? pathTo(scope, found) : [];
  // Climb from the name (or the command string) to the call it belongs to: Go's
  // `CustomCommand(ctx, []string{"SET", ...})` holds the string seven levels down.
  for (let i = path.length - 1; i >= Math.max(0, path.length - 7); i--) {
    const call = syntax.call(path[i]);
    if (!call) continue;
    if (seen.has(call.node.id)) return undefined;
    const isName = call.nameNode.startIndex === start;
    const isCommandArg = commandString && call.nameNode.startIndex < start;
    if (!isName && !isCommandArg) continue;
    seen.add(call.node.id);
    const op = toOp(syntax, call);
    return op && !(mocks && mocked(syntax, call, path.slice(0, i))) ? { ...op, path: path.slice(0, i + 1) } : undefined;
  }
  return undefined;
}

/** A mock's argument matcher (Mockito, Python's mock.ANY): the call states an expectation, it sends nothing. */
const MATCHER =
  /^(?:(?:Mockito|ArgumentMatchers|Matchers|gomock|mock|It|Arg)\.)?(?:eq|any\w*|Any\w*|argThat|same|isA|refEq|anything|Anything\w*|IsAny\w*|ANY)\b/;
/** Text of code that sets up test doubles: stubbing, verification, argument matchers. */
const MOCKING =
  /\b(?:when|given|verify|doReturn|Setup|Verify|EXPECT|expect)\s*\(|\b(?:eq|any\w*|Any\w*|argThat|IsAny\w*|ANY)\b/;
/** Calls that wrap a mock's expectation: `when(jedis.setnx(...))`, `verify(jedis).setnx(...)`, Moq's `Setup(...)`. */
const STUBBING = /^(?:when|given|verify|doReturn|expect|Setup|Verify|Mockito\.\w+|BDDMockito\.\w+)$/;

/** Whether a call is a test double's stubbing or verification rather than a command (`ancestors` end at its parent). */
function mocked(syntax: Syntax, call: Call, ancestors: Node[]): boolean {
  if (call.args.some((arg) => MATCHER.test(arg.value.text))) return true;
  // `verify(jedis).setnx(...)`, gomock's `mock.EXPECT().SetNX(...)`.
  if (/^(?:verify|Mockito\.verify)\s*\(|\bEXPECT\(\)$/.test(call.receiver?.text ?? '')) return true;
  for (let i = ancestors.length - 1; i >= Math.max(0, ancestors.length - 3); i--) {
    const outer = syntax.call(ancestors[i]) ?? undefined;
    const name = outer ? outer.nameNode.text : ancestors[i].childForFieldName('function')?.text;
    if (name && STUBBING.test(name)) return true;
  }
  return false;
}

/** The kind of operation a method named `name` performs, by its name alone (`setNX` and `set_nx` are SETNX). */
export function commandKind(name: string): OpKind | undefined {
  const kind =
    METHODS[
      name
        .toLowerCase()
        .replace(/_/g, '')
        .replace(/async$/, '')
    ];
  return kind === 'set' || kind === 'stringset' ? 'acquire' : kind === 'script' ? undefined : kind;
}

export function isClockReading(node: Node | undefined): boolean {
  return !!node && CLOCK.test(node.text);
}
