// Script runs: EVAL/EVALSHA on a client, a registered script (redis-py's register_script, ioredis'
// defineCommand, node-redis' defineScript, Spring's RedisScript, StackExchange's LuaScript.Prepare,
// go-redis' and redigo's NewScript), the pack's LockScripts, or a project helper named like a
// release. Which script runs (its text, else its name) says whether it is a compare-and-delete
// release or a lease extension; its first key says which lock it is about.
import type { Node } from '@vscode/tree-sitter-wasm';
import { unwrap, type Arg, type Call, type Syntax } from './syntax';

/** A Lua compare-and-delete: a DEL/UNLINK of a key under a test of its value. */
const RELEASE_LUA = /\b(?:redis|server)\.p?call\s*\(\s*['"](?:del|unlink)['"]/i;
const COMPARES = /==|~=/;
/** Lua that runs Redis commands: script text, not a name. */
const LUA_TEXT = /\b(?:redis|server)\.p?call\b/;
/** A script (or helper, or file) named for a release. */
export const RELEASE_NAME = /release|unlock|del(?:ete)?_?if|compare_?and_?del|\bcad\b/i;
/** A script named for something else than a release: taking a lock, counting. */
const OTHER_NAME = /acquire|take|grab|obtain|fence|incr|count|rate|limit/i;
/** eval/run of a script that extends a lease (LOCK009): the script's name or text says so. */
const EXTEND_SCRIPT = /extend|renew|expire|heartbeat/i;
/** List builders whose first argument is the first element: `Collections.singletonList(k)`, `List.of(k)`. */
const LIST_CALL = /^(?:[\w.]*\.)?(?:singletonList|asList|of|newArrayList|listOf|arrayOf|Array|list|tuple)$/;
const LIST_NODE =
  /^(?:array|list|tuple|array_creation_expression|array_initializer|initializer_expression|composite_literal|literal_value|literal_element|array_element_initializer|collection_expression|implicit_array_creation_expression|expression_list|element)$/;

export interface ScriptRun {
  kind: 'scriptRelease' | 'extend';
  /** The first key the script is given. */
  key?: Node;
  /** scriptRelease: the script's name, when only the file's declarations can tell what it does. */
  scriptName?: string;
}

/** Whether a script's text (or any expression holding it) is a compare-and-delete release. */
export function isReleaseLua(text: string): boolean {
  return RELEASE_LUA.test(text) && COMPARES.test(text);
}

/**
 * The first element of a list of keys (`[k]`, `Collections.singletonList(k)`, `[]string{k}`), or
 * the key itself; undefined for an empty list.
 */
export function firstElement(node: Node, depth = 0): Node | undefined {
  const value = unwrap(node);
  if (depth > 4) return value;
  if (/call|invocation/.test(value.type)) {
    const callee = value.childForFieldName('function') ?? value.childForFieldName('name');
    if (!LIST_CALL.test(callee?.text ?? '')) return value;
    const args = value.childForFieldName('arguments');
    const first = args?.namedChildren.find((child): child is Node => !!child && !child.type.includes('comment'));
    return first && firstElement(first, depth + 1);
  }
  if (value.type === 'anonymous_object_creation_expression') return firstMember(value);
  if (!LIST_NODE.test(value.type)) return value;
  const first = value.namedChildren.find(
    (child): child is Node => !!child && !child.type.includes('comment') && !/type|dimensions|rank/.test(child.type),
  );
  return first && firstElement(first, depth + 1);
}

/** C#'s `new { key = (RedisKey)k, value = token }`: the first member's value. */
function firstMember(object: Node): Node | undefined {
  const children = object.children.filter((child): child is Node => !!child);
  const equals = children.findIndex((child) => child.type === '=');
  const value =
    equals < 0
      ? object.namedChildren.find((child): child is Node => !!child)
      : children.slice(equals + 1).find((child) => child.isNamed);
  // `(RedisKey)k`: the key is what is cast.
  return value?.type === 'cast_expression' ? (value.childForFieldName('value') ?? value) : value;
}

const listLike = (node: Node) =>
  LIST_NODE.test(unwrap(node).type) ||
  /^(?:[\w.]*\.)?(?:singletonList|asList|List\.of|listOf)\(/.test(unwrap(node).text);

/** The first key among a script run's arguments after the script: `keys=[k]`, `{ keys: [k] }`, `[k]`, `1, k`. */
function keyAfterScript(args: Arg[]): Node | undefined {
  const named = args.find((arg) => arg.name === 'keys');
  if (named) return firstElement(named.value);
  for (let i = 0; i < args.length; i++) {
    const value = unwrap(args[i].value);
    // node-redis: eval(script, { keys: [k], arguments: [t] })
    if (value.type === 'object') {
      const keys = value.namedChildren.find((pair) => pair?.childForFieldName('key')?.text === 'keys');
      const list = keys?.childForFieldName('value');
      return list ? firstElement(list) : undefined;
    }
    // Lettuce: eval(script, ScriptOutputType.INTEGER, new String[] { k }, t)
    if (/ScriptOutputType/.test(value.text)) continue;
    const built = builtKeys(value);
    if (built) return built;
    if (listLike(value) || value.type === 'anonymous_object_creation_expression') return firstElement(value);
    // eval(script, numkeys, k, ...): a key count, then the keys.
    if (
      /^(?:integer|number|int_literal|decimal_integer_literal|integer_literal)$/.test(value.type) ||
      /^num_?keys$/i.test(value.text)
    )
      return args[i + 1] && value.text !== '0' ? unwrap(args[i + 1].value) : undefined;
    return undefined;
  }
  return undefined;
}

/** GLIDE's script options built by a chain: Java `ScriptOptions.builder().key(k)`, Go `NewScriptOptions().WithKeys([]string{k})`. */
function builtKeys(options: Node): Node | undefined {
  if (!/ScriptOptions/.test(options.text)) return undefined;
  for (const call of options.descendantsOfType(['method_invocation', 'call_expression'])) {
    const callee = call?.childForFieldName('name') ?? call?.childForFieldName('function')?.childForFieldName('field');
    if (!call || !/^(?:key|keys|WithKeys)$/.test(callee?.text ?? '')) continue;
    const first = call
      .childForFieldName('arguments')
      ?.namedChildren.find((arg) => !!arg && !arg.type.includes('comment'));
    if (first) return firstElement(first);
  }
  return undefined;
}

/** What the script's expression says it does: its text, else its name; undefined when it is some other script. */
function classify(script: Node, resolved: Node): ScriptRun['kind'] | 'unknown' | undefined {
  const text = resolved.text;
  if (LUA_TEXT.test(text))
    return isReleaseLua(text) ? 'scriptRelease' : EXTEND_SCRIPT.test(text) ? 'extend' : undefined;
  const name = `${script.text} ${resolved.text}`.slice(0, 400);
  if (RELEASE_NAME.test(name)) return 'scriptRelease';
  if (EXTEND_SCRIPT.test(name)) return 'extend';
  return OTHER_NAME.test(name) ? undefined : 'unknown';
}

/**
 * Reads a script run from a call whose method is a script runner (`method`, lower case, without
 * Async) or named like a release; `args` are the call's arguments after a go-redis context.
 * `resolve` finds a local variable's value in the function.
 */
export function scriptRunOf(
  syntax: Syntax,
  call: Call,
  method: string,
  args: Arg[],
  resolve: (node: Node) => Node,
): ScriptRun | undefined {
  let script: Node | undefined;
  let key: Node | undefined;
  // Valkey GLIDE's invokeScript(script, { keys, args }), invoke_script(script, keys=..., args=...),
  // invokeScript(script, ScriptOptions.builder().key(k)...), InvokeScriptWithOptions(ctx, script, *options.NewScriptOptions().WithKeys(...)).
  const runsScripts =
    /^(?:eval(?:sha)?(?:_?ro)?|invoke_?script(?:withoptions)?)$/.test(method) || method === 'scriptevaluate';
  if (runsScripts || method === 'execute') {
    // eval(script, keys...), ScriptEvaluate(script, keys, args), Spring's execute(script, keys, args...).
    script = args[0]?.value;
    key = keyAfterScript(args.slice(1));
    if (method === 'execute' && !key) return undefined;
  } else if (method === 'run' || method === 'do' || method === 'evaluate') {
    // go-redis script.Run(ctx, client, keys, args...), redigo script.Do(conn, keys..., args...),
    // StackExchange LuaScript.Evaluate(db, new { key = ... }); the pack's LockScripts.run('release', [k], [t]).
    const named = args[0] && /string/.test(unwrap(args[0].value).type) && syntax.grammar !== 'go';
    script = named ? args[0].value : call.receiver;
    if (!named && !['go', 'c-sharp'].includes(syntax.grammar)) return undefined;
    const rest = args.slice(1);
    key = method === 'do' ? rest[0] && unwrap(rest[0].value) : rest[0] && firstElement(rest[0].value);
  } else if (RELEASE_NAME.test(method)) {
    // A project helper or a registered command: releaseLock(key, token), self._release(keys=[k], args=[t]).
    const keys = args.find((arg) => arg.name === 'keys');
    if (!keys && args.length < 2) return undefined;
    return { kind: 'scriptRelease', key: keys ? firstElement(keys.value) : unwrap(args[0].value) };
  } else if (args.some((arg) => arg.name === 'keys')) {
    // redis-py: a registered script is called with keys= and args=; its name says what it does.
    script = call.receiver ? call.nameNode : undefined;
    key = keyAfterScript(args);
  }
  if (!script) return undefined;
  // A script named for what it does needs no look-up of its value.
  const named = unwrap(script);
  const resolved = /^[\w$.>@-]+$/.test(named.text) && classify(named, named) !== 'unknown' ? named : resolve(named);
  const kind = classify(script, resolved);
  if (!kind) return undefined;
  if (kind === 'extend') return { kind };
  if (!key) return undefined;
  if (kind === 'scriptRelease') return { kind, key };
  // A name only the file's declarations can explain (`redis.eval(SCRIPT, 1, key, token)`,
  // `giveBack.Run(ctx, rdb, []string{key}, token)`, `self._give_back(keys=[key], args=[token])`).
  const name = /^[\w$.>@-]+$/.test(resolved.text)
    ? resolved.text.replace(/^.*(?:\.|->|::)/, '').replace(/^[@$]+/, '')
    : undefined;
  return name ? { kind: 'scriptRelease', key, scriptName: name } : undefined;
}
