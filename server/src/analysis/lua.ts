// LOCK007: Lua scripts that touch keys not passed in KEYS, or call KEYS. Runs on .lua files
// (tree-sitter's Lua grammar, one unit per top-level statement so an edit re-reads only its
// statement) and on Lua embedded in string literals of the host languages (any literal that
// calls redis.call). Calls through an alias (`local rcall = redis.call`) count as calls.
import type { Node, Parser } from '@vscode/tree-sitter-wasm';

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

/** One place of a LOCK007 problem, in the offsets of the text that was checked. */
export interface LuaPlace {
  start: number;
  end: number;
  message: string;
}

/** A script's LOCK007 problem: reported once, at its first call, with the others as related places. */
export interface LuaFinding extends LuaPlace {
  code: 'LOCK007';
  related?: LuaPlace[];
  /** Every undeclared key is built on a declared key or argument (its prefix, its hash tag): reported one step lower. */
  minor?: boolean;
}

/**
 * A key argument: a KEYS entry (fine), a name to look up, or a problem; `lead` is what a built
 * key starts with (`KEYS[1]`, `ARGV[1]`, a name), which says whether it shares a declared key's prefix.
 */
type KeyArg = { kind: 'fine' } | { kind: 'name'; name: string } | { kind: 'problem'; what: string; lead?: string };

interface LuaCall {
  start: number;
  end: number;
  /** `redis` for redis.call/pcall, else the identifier called (an alias, if one is declared). */
  callee: string;
  command: string;
  keys: KeyArg[];
}

/** What one top-level statement of a script says: names it binds, aliases, and its calls. */
export interface LuaUnit {
  /** [name, holds a KEYS entry, its value (the start of it)] in source order. */
  bindings: [string, boolean, string][];
  /** Parameters and numeric loop variables: given the benefit of the doubt. */
  trusted: string[];
  aliases: string[];
  calls: LuaCall[];
}

/** Splits a list at its top-level commas (`a, f(b, c), d`). */
function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < list.length; i++) {
    const char = list[i];
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (char === ',' && depth === 0) {
      parts.push(list.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(list.slice(from).trim());
  return parts;
}

const ASSIGNMENT = /(?:^|[;\s(])(?:local\s+)?([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?<![=~<>])=(?!=)\s*([^\n;]*)/g;
const FOR_IN = /\bfor\s+([A-Za-z_][\w\s,]*?)\s+in\s+([^\n]*?)\s+do\b/g;
const FOR_NUMERIC = /\bfor\s+([A-Za-z_]\w*)\s*=/g;
const PARAMETERS = /\bfunction\b[\w.:\s]*\(([^)]*)\)/g;
const REDIS_CALLEE = /^redis\.p?call$/;

const patterns = new Map<string, RegExp>();

/** `redis.call(`, `redis.pcall(` and `alias(`, not as part of a longer name. */
function calleePattern(aliases: string[]): RegExp {
  const key = aliases.join(',');
  let pattern = patterns.get(key);
  if (!pattern) {
    const names = ['redis\\s*\\.\\s*p?call', ...aliases.map((alias) => alias.replace(/\W/g, ''))];
    pattern = new RegExp(`(?<![\\w.:])(${names.join('|')})\\s*\\(`, 'g');
    patterns.set(key, pattern);
  }
  pattern.lastIndex = 0;
  return pattern;
}

/** Whether `index` sits after a `--` comment marker on its line (outside quotes). */
function inComment(text: string, index: number): boolean {
  const line = text.slice(text.lastIndexOf('\n', index - 1) + 1, index);
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = '';
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '-' && line[i + 1] === '-') return true;
  }
  return false;
}

/** The arguments of the call whose `(` is at `open`, split at top-level commas; undefined when unbalanced. */
function splitArguments(text: string, open: number): { list: string[]; end: number } | undefined {
  const list: string[] = [];
  let depth = 0;
  let from = open + 1;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === '"' || char === "'") {
      for (i++; i < text.length && text[i] !== char; i++) if (text[i] === '\\') i++;
    } else if (char === '[' && /^\[=*\[/.test(text.slice(i, i + 8))) {
      const level = /^\[(=*)\[/.exec(text.slice(i, i + 8))![1];
      const close = text.indexOf(`]${level}]`, i);
      if (close < 0) return undefined;
      i = close + level.length + 1;
    } else if (char === '-' && text[i + 1] === '-') {
      const newline = text.indexOf('\n', i);
      i = newline < 0 ? text.length : newline;
    } else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) {
      depth--;
      if (depth === 0) {
        list.push(text.slice(from, i).trim());
        return { list: list.filter((arg, n) => arg !== '' || n < list.length - 1), end: i + 1 };
      }
    } else if (char === ',' && depth === 1) {
      list.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  return undefined;
}

/** The content of a string literal argument (`'DEL'`, `"del"`, `[[x]]`), else undefined. */
function stringContent(arg: string): string | undefined {
  return /^(['"])(.*)\1$/s.exec(arg)?.[2] ?? /^\[(=*)\[([\s\S]*)\]\1\]$/.exec(arg)?.[2];
}

/** The first operand of `arg` when it is a concatenation (`..` outside strings and brackets), else undefined. */
function concatenationLead(arg: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < arg.length; i++) {
    const char = arg[i];
    if (char === '"' || char === "'") {
      for (i++; i < arg.length && arg[i] !== char; i++) if (arg[i] === '\\') i++;
    } else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (char === '.' && arg[i + 1] === '.' && arg[i + 2] !== '.' && depth === 0) return arg.slice(0, i).trim();
  }
  return undefined;
}

/** What a key argument is, from its text. */
function describeText(arg: string): KeyArg {
  if (/^KEYS\s*\[[^\]]*\]$/.test(arg)) return { kind: 'fine' };
  if (/^[A-Za-z_]\w*$/.test(arg)) return { kind: 'name', name: arg };
  if (stringContent(arg) !== undefined) return { kind: 'problem', what: `the hard-coded key ${arg}` };
  if (/^ARGV\s*\[[^\]]*\]$/.test(arg)) return { kind: 'problem', what: 'a key taken from ARGV' };
  const lead = concatenationLead(arg);
  if (lead !== undefined) return { kind: 'problem', what: 'a key built by concatenation', lead };
  return { kind: 'fine' };
}

/**
 * Reads one statement (or a whole script) of Lua; call offsets relative to `base`. Names it binds
 * come from its text (cheap, and enough for "does this name hold a KEYS entry"); calls from the
 * tree, found at the places the text names `redis.call`, `redis.pcall` or a known alias.
 */
export function readLuaUnit(node: Node, base: number, aliases: readonly string[] = []): LuaUnit {
  const unit: LuaUnit = { bindings: [], trusted: [], aliases: [], calls: [] };
  if (node.hasError) return unit;
  const text = node.text;
  for (const match of text.matchAll(ASSIGNMENT)) {
    const names = match[1].split(',').map((name) => name.trim());
    const values = splitTopLevel(match[2]);
    names.forEach((name, i) => {
      const value = values[i] ?? '';
      if (REDIS_CALLEE.test(value)) unit.aliases.push(name);
      unit.bindings.push([name, /^KEYS\s*\[/.test(value), value.trim().slice(0, 200)]);
    });
  }
  for (const match of text.matchAll(FOR_IN)) {
    const names = match[1].split(',').map((name) => name.trim());
    const overKeys = /(?<!['"])\bKEYS\b(?!['"])/.test(match[2]);
    names.forEach((name, i) => unit.bindings.push([name, overKeys && i === 1, '']));
  }
  for (const match of text.matchAll(FOR_NUMERIC)) unit.trusted.push(match[1]);
  for (const match of text.matchAll(PARAMETERS)) {
    for (const param of match[1].split(',')) if (/^[A-Za-z_]\w*$/.test(param.trim())) unit.trusted.push(param.trim());
  }
  const callees = calleePattern([...aliases, ...unit.aliases]);
  for (const match of text.matchAll(callees)) {
    if (inComment(text, match.index)) continue;
    const open = match.index + match[0].length - 1;
    const args = splitArguments(text, open);
    if (!args) continue;
    const command = stringContent(args.list[0] ?? '');
    if (command === undefined) continue;
    const upper = command.toUpperCase();
    const keyArgs = ALL_KEYS.has(upper) ? args.list.slice(1) : args.list.slice(1, 2);
    unit.calls.push({
      start: node.startIndex + match.index - base,
      end: node.startIndex + args.end - base,
      callee: REDIS_CALLEE.test(match[1].replace(/\s+/g, '')) ? 'redis' : match[1],
      command: upper,
      keys: keyArgs.map(describeText),
    });
  }
  return unit;
}

const KEYS_MESSAGE =
  'KEYS in a script scans the whole keyspace while Redis runs nothing else, and touches keys the script did not declare. Pass the keys in KEYS, or SCAN from the client.';
const keyMessage = (command: string, what: string) =>
  `${command} uses ${what}, not a key from KEYS: Redis Cluster routes a script by its declared keys, so this key may live on another node (CROSSSLOT errors), and scripts that hide keys break replication tooling. Pass the key in KEYS.`;
const prefixedMessage = (command: string, what: string) =>
  `${command} uses ${what}, not a key from KEYS. Every undeclared key of this script is built on a declared key or argument (its prefix), so in Redis Cluster it lands in that key's slot when the prefix carries a hash tag ({queue}:); pass the keys in KEYS all the same, so that tooling which reads a script's declared keys sees them.`;
const more = (count: number) =>
  count ? ` This script has ${count} more call${count === 1 ? '' : 's'} like it (related information).` : '';

/** A LOCK007 problem at one call: what is wrong, and whether the key is built on a declared key or argument. */
interface CallProblem {
  place: LuaPlace;
  command: string;
  what: string;
  /** Built on a declared key or argument: `prefix .. ARGV[i]` with `local prefix = KEYS[1]`. */
  prefixed: boolean;
}

/**
 * LOCK007 of a script made of `units` (each with the offset it starts at): one finding, at the
 * first offending call, the others as related places; one step lower when every undeclared key is
 * built on a declared key or argument (a queue's `{prefix}` passed in KEYS or ARGV).
 */
export function checkLuaUnits(units: { unit: LuaUnit; offset: number }[]): LuaFinding[] {
  // Names that hold a KEYS entry everywhere they are assigned; parameters get the benefit of the doubt.
  const fromKeys = new Map<string, boolean>();
  const values = new Map<string, string[]>();
  const aliases = new Set<string>();
  for (const { unit } of units) {
    for (const [name, keyish, value] of unit.bindings) {
      fromKeys.set(name, (fromKeys.get(name) ?? true) && keyish);
      const known = values.get(name);
      if (known) known.push(value);
      else values.set(name, [value]);
    }
    for (const alias of unit.aliases) aliases.add(alias);
  }
  for (const { unit } of units) for (const name of unit.trusted) fromKeys.set(name, true);
  // A declared key or argument, or a name that only ever holds one (or a key built on one): a prefix.
  const names = new Map<string, boolean>();
  const declared = (text: string, depth = 0): boolean => {
    if (/^(?:KEYS|ARGV)\s*\[[^\]]*\]$/.test(text)) return true;
    if (!/^[A-Za-z_]\w*$/.test(text)) return builtOnDeclared(text, depth);
    let known = names.get(text);
    if (known === undefined && depth < 5) {
      known = (values.get(text) ?? ['']).every((value) => declared(value, depth + 1));
      names.set(text, known);
    }
    return !!known;
  };
  // A key built by concatenation on a declared key or argument: `prefix .. ARGV[i]`, `KEYS[1] .. ':owner'`.
  function builtOnDeclared(text: string, depth = 0): boolean {
    const lead = concatenationLead(text);
    return lead !== undefined && depth < 5 && declared(lead, depth + 1);
  }
  // A name every assignment of which builds a key on a declared key or argument.
  const builtName = (name: string) => (values.get(name) ?? ['']).every((value) => builtOnDeclared(value));
  const problems: CallProblem[] = [];
  for (const { unit, offset } of units) {
    for (const call of unit.calls) {
      if (call.callee !== 'redis' && !aliases.has(call.callee)) continue;
      const at = { start: call.start + offset, end: call.end + offset };
      if (call.command === 'KEYS') {
        problems.push({ place: { ...at, message: KEYS_MESSAGE }, command: 'KEYS', what: '', prefixed: false });
        continue;
      }
      if (NO_KEYS.has(call.command)) continue;
      for (const key of call.keys) {
        const problem =
          key.kind === 'problem'
            ? { what: key.what, prefixed: key.lead !== undefined && declared(key.lead) }
            : key.kind === 'name' && fromKeys.get(key.name) === false
              ? {
                  what: `variable ${key.name}, which does not hold a KEYS entry`,
                  prefixed: builtName(key.name),
                }
              : undefined;
        if (!problem) continue;
        problems.push({
          place: { ...at, message: keyMessage(call.command, problem.what) },
          command: call.command,
          ...problem,
        });
        break;
      }
    }
  }
  if (!problems.length) return [];
  const [first, ...others] = problems;
  const minor = problems.every((problem) => problem.prefixed);
  const message = minor ? prefixedMessage(first.command, first.what) : first.place.message;
  return [
    {
      code: 'LOCK007',
      ...first.place,
      message: `${message}${more(others.length)}`,
      ...(others.length && { related: others.map((other) => other.place) }),
      ...(minor && { minor: true }),
    },
  ];
}

/** Problems of recently checked scripts by their text: the same release script is embedded again and again. */
const checkedScripts = new Map<string, LuaFinding[]>();
const SCRIPTS_KEPT = 256;

/** LOCK007 for a whole script text (one parse, one unit). */
export function checkLuaScript(parser: Parser, source: string): LuaFinding[] {
  let findings = checkedScripts.get(source);
  if (!findings) {
    findings = readLuaScript(parser, source);
    if (checkedScripts.size >= SCRIPTS_KEPT) checkedScripts.delete(checkedScripts.keys().next().value!);
    checkedScripts.set(source, findings);
  }
  return findings;
}

function readLuaScript(parser: Parser, source: string): LuaFinding[] {
  // Redis runs Lua 5.1; a `#!lua` line (Redis 7 script flags) is not Lua.
  const tree = parser.parse(source.replace(/^#![^\n]*/, (line) => ' '.repeat(line.length)));
  if (!tree) return [];
  try {
    if (tree.rootNode.hasError) return [];
    return checkLuaUnits([{ unit: readLuaUnit(tree.rootNode, 0), offset: 0 }]);
  } finally {
    tree.delete();
  }
}

/** A script as decoded text plus the document offset of each of its characters. */
interface Embedded {
  source: string;
  offsets: number[];
}

const CONCATENATION = new Set(['binary_expression', 'binary', 'binary_operator', 'concatenated_string']);
const STRING_NODE = /string|heredoc|nowdoc/;
const LUA_CALL = /redis\.p?call\b/g;

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

/** LOCK007 for Lua inside the string literals of `scope` (a unit of a host-language tree). */
export function checkEmbeddedLua(scope: Node, text: string, lua: Parser): LuaFinding[] {
  const findings: LuaFinding[] = [];
  const done = new Set<number>();
  for (const match of text.slice(scope.startIndex, scope.endIndex).matchAll(LUA_CALL)) {
    let literal: Node | null = scope.descendantForIndex(scope.startIndex + match.index);
    while (literal && !STRING_NODE.test(literal.type)) literal = literal.parent;
    // The outermost string node (a fragment's parent literal).
    while (literal?.parent && STRING_NODE.test(literal.parent.type) && !CONCATENATION.has(literal.parent.type))
      literal = literal.parent;
    if (!literal) continue;
    const { root, script } = embeddedScript(literal);
    if (done.has(root.id)) continue;
    done.add(root.id);
    for (const problem of checkLuaScript(lua, script.source)) {
      const place = (at: LuaPlace): LuaPlace => ({
        message: at.message,
        start: script.offsets[at.start],
        end: script.offsets[at.end - 1] + 1,
      });
      findings.push({ ...problem, ...place(problem), ...(problem.related && { related: problem.related.map(place) }) });
    }
  }
  return findings;
}
