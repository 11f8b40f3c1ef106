// LOCK007: Lua scripts that touch keys not passed in KEYS, or call KEYS. Runs on .lua files and
// on Lua embedded in string literals of the host languages (any literal that calls redis.call).
import type { Node, Tree } from '@vscode/tree-sitter-wasm';
import * as luaparse from 'luaparse';
import type { Finding } from './rules';

type LuaNode = luaparse.Node & { range?: [number, number] };

/** Commands whose arguments are not keys, or whose keys are not at the usual place. */
const NO_KEYS = new Set([
  'TIME',
  'PING',
  'ECHO',
  'INFO',
  'DBSIZE',
  'RANDOMKEY',
  'SCAN',
  'SCRIPT',
  'CLUSTER',
  'CONFIG',
  'FLUSHALL',
  'FLUSHDB',
  'PUBLISH',
  'SPUBLISH',
  'SELECT',
  'SWAPDB',
  'LASTSAVE',
  'ROLE',
  'COMMAND',
  'READONLY',
  'WAIT',
  'FUNCTION',
  'FCALL',
  'FCALL_RO',
  'EVAL',
  'EVALSHA',
  'CLIENT',
  'MEMORY',
  'OBJECT',
  'XREAD',
  'XREADGROUP',
  'SETRANGE_RO',
  'DEBUG',
  'SLOWLOG',
]);
/** Commands whose every argument is a key. */
const ALL_KEYS = new Set(['DEL', 'UNLINK', 'EXISTS', 'TOUCH', 'MGET', 'WATCH', 'SINTER', 'SUNION', 'SDIFF', 'PFCOUNT']);

const isKeysIndex = (node: LuaNode | undefined): boolean =>
  node?.type === 'IndexExpression' && node.base.type === 'Identifier' && node.base.name === 'KEYS';

const isRedisCall = (node: LuaNode): node is luaparse.CallExpression =>
  node.type === 'CallExpression' &&
  node.base.type === 'MemberExpression' &&
  node.base.base.type === 'Identifier' &&
  node.base.base.name === 'redis' &&
  (node.base.identifier.name === 'call' || node.base.identifier.name === 'pcall');

function children(node: LuaNode): LuaNode[] {
  const out: LuaNode[] = [];
  for (const [field, value] of Object.entries(node)) {
    if (field === 'range' || field === 'loc') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item === 'object' && 'type' in item) out.push(item as LuaNode);
    } else if (value && typeof value === 'object' && 'type' in value) {
      out.push(value as LuaNode);
    }
  }
  return out;
}

function walk(node: LuaNode, visit: (node: LuaNode) => void): void {
  visit(node);
  for (const child of children(node)) walk(child, visit);
}

const unquote = (raw: string) => raw.replace(/^(['"]|\[=*\[)|(['"]|\]=*\])$/g, '');

/** Where a Lua problem sits, in the script's own offsets. */
export interface LuaProblem {
  start: number;
  end: number;
  message: string;
}

/** LOCK007 problems of one script; none when it does not parse (it may not be Lua at all). */
export function checkLuaScript(source: string): LuaProblem[] {
  let chunk: luaparse.Chunk;
  try {
    // Redis runs Lua 5.1; a `#!lua` line (Redis 7 script flags) is not Lua.
    chunk = luaparse.parse(
      source.replace(/^#![^\n]*/, (line) => ' '.repeat(line.length)),
      { ranges: true, luaVersion: '5.1' },
    );
  } catch {
    return [];
  }
  // Names that hold a KEYS entry everywhere they are assigned; parameters are given the benefit of the doubt.
  const fromKeys = new Map<string, boolean>();
  const bind = (name: string, keyish: boolean) => fromKeys.set(name, (fromKeys.get(name) ?? true) && keyish);
  walk(chunk, (node) => {
    if (node.type === 'LocalStatement' || node.type === 'AssignmentStatement') {
      node.variables.forEach((variable, i) => {
        if (variable.type === 'Identifier') bind(variable.name, isKeysIndex(node.init[i]));
      });
    } else if (node.type === 'ForGenericStatement') {
      const overKeys = node.iterators.some(
        (iterator) =>
          iterator.type === 'CallExpression' &&
          iterator.arguments.some((arg) => arg.type === 'Identifier' && arg.name === 'KEYS'),
      );
      node.variables.forEach((variable, i) => bind(variable.name, overKeys && i === 1));
    } else if (node.type === 'FunctionDeclaration' || node.type === 'ForNumericStatement') {
      const params = node.type === 'FunctionDeclaration' ? node.parameters : [node.variable];
      for (const param of params) if (param.type === 'Identifier') fromKeys.set(param.name, true);
    }
  });

  const describe = (arg: LuaNode): string | undefined => {
    if (isKeysIndex(arg)) return undefined;
    if (arg.type === 'Identifier')
      return fromKeys.get(arg.name) === false ? `variable ${arg.name}, which does not hold a KEYS entry` : undefined;
    if (arg.type === 'StringLiteral') return `the hard-coded key ${arg.raw}`;
    if (arg.type === 'IndexExpression' && arg.base.type === 'Identifier' && arg.base.name === 'ARGV')
      return 'a key taken from ARGV';
    if (arg.type === 'BinaryExpression' && arg.operator === '..') return 'a key built by concatenation';
    return undefined;
  };

  const problems: LuaProblem[] = [];
  walk(chunk, (node) => {
    if (!isRedisCall(node) || node.arguments[0]?.type !== 'StringLiteral') return;
    const command = unquote(node.arguments[0].raw).toUpperCase();
    const [start, end] = (node as LuaNode).range!;
    if (command === 'KEYS') {
      problems.push({
        start,
        end,
        message:
          'KEYS in a script scans the whole keyspace while Redis runs nothing else, and touches keys the script did not declare. Pass the keys in KEYS, or SCAN from the client.',
      });
      return;
    }
    if (NO_KEYS.has(command)) return;
    const keyArgs: LuaNode[] = ALL_KEYS.has(command) ? node.arguments.slice(1) : node.arguments.slice(1, 2);
    for (const arg of keyArgs) {
      const what = describe(arg);
      if (!what) continue;
      problems.push({
        start,
        end,
        message: `${command} uses ${what}, not a key from KEYS: Redis Cluster routes a script by its declared keys, so this key may live on another node (CROSSSLOT errors), and scripts that hide keys break replication tooling. Pass the key in KEYS.`,
      });
      return;
    }
  });
  return problems;
}

/** A script as decoded text plus the document offset of each of its characters. */
interface Embedded {
  source: string;
  offsets: number[];
}

const CONCATENATION = new Set(['binary_expression', 'binary', 'binary_operator', 'concatenated_string']);

/** Decodes one literal (quotes, prefixes, backslash escapes, heredocs) keeping each character's offset. */
function decodeLiteral(node: Node, into: Embedded): void {
  const text = node.text;
  let from: number;
  let to: number;
  let raw: boolean;
  if (text.startsWith('<<<') || /^(heredoc|nowdoc)/.test(node.type)) {
    // PHP heredoc/nowdoc or a Ruby heredoc body: the lines between the opener and the terminator.
    from = text.startsWith('<<<') ? text.indexOf('\n') + 1 : 0;
    to = text.lastIndexOf('\n');
    raw = true;
  } else {
    const open = /^([a-zA-Z]*@?\$?@?)("""|'''|"|'|`)/.exec(text);
    if (!open) return;
    from = open[0].length;
    to = text.length - (text.endsWith(open[2]) ? open[2].length : 0);
    raw = open[2] === '`' || /[rR@]/.test(open[1]);
  }
  for (let i = from; i < to; i++) {
    let char = text[i];
    const offset = node.startIndex + i;
    if (!raw && char === '\\' && i + 1 < to) {
      const next = text[++i];
      char = ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[next] ?? next;
    }
    into.source += char;
    into.offsets.push(offset);
  }
}

/** The whole script a literal belongs to: adjacent literals joined with `+`, `.` or juxtaposition. */
function embeddedScript(literal: Node): { root: Node; script: Embedded } {
  let root = literal;
  while (root.parent && CONCATENATION.has(root.parent.type)) root = root.parent;
  const script: Embedded = { source: '', offsets: [] };
  const visit = (node: Node) => {
    if (CONCATENATION.has(node.type) && node.id !== literal.id) {
      for (const child of node.namedChildren) if (child) visit(child);
    } else if (STRING_NODE.test(node.type)) {
      decodeLiteral(node, script);
    } else {
      // An expression in the middle (a variable): keep the script parseable.
      script.source += ' ';
      script.offsets.push(node.startIndex);
    }
  };
  visit(root);
  return { root, script };
}

const LUA_CALL = /redis\.p?call\s*\(/g;
const STRING_NODE = /string|heredoc|nowdoc/;

/** LOCK007 for Lua inside string literals of a host-language tree. */
export function checkEmbeddedLua(tree: Tree, text: string): Finding[] {
  const findings: Finding[] = [];
  const done = new Set<number>();
  for (const match of text.matchAll(LUA_CALL)) {
    let literal: Node | null = tree.rootNode.descendantForIndex(match.index);
    while (literal && !STRING_NODE.test(literal.type)) literal = literal.parent;
    // The outermost string node (a fragment's parent literal).
    while (literal?.parent && STRING_NODE.test(literal.parent.type) && !CONCATENATION.has(literal.parent.type))
      literal = literal.parent;
    if (!literal) continue;
    const { root, script } = embeddedScript(literal);
    if (done.has(root.id)) continue;
    done.add(root.id);
    for (const problem of checkLuaScript(script.source)) {
      findings.push({
        code: 'LOCK007',
        message: problem.message,
        start: script.offsets[problem.start],
        end: script.offsets[problem.end - 1] + 1,
      });
    }
  }
  return findings;
}

/** LOCK007 for a .lua file. */
export function checkLuaFile(text: string): Finding[] {
  return checkLuaScript(text).map((problem) => ({ code: 'LOCK007' as const, ...problem }));
}
