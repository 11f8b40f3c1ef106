// What one unit of a document (an outermost function, or a declaration outside functions) says
// about locks, as plain data: its Redis operations with everything the rules need to know that
// only the syntax tree can tell (the function and class they sit in, what their key and value
// resolve to, the test a DEL runs under, whether a reply is used, the retry loop around an
// acquire), the names it declares, and its LOCK007 problems. Plain data can be kept per unit
// and reused while the unit's text is unchanged, so an edit re-reads only the units it touched.
import type { Node } from '@vscode/tree-sitter-wasm';
import { planFix, type FixPlan } from './fix';
import { keyGlob, keyHelpers, lastName, normalizeGlob, type Lookup } from './keys';
import { readDeclarations, type Declaration } from './declarations';
import { checkEmbeddedLua, type LuaFinding } from './lua';
import { findOps, isClockReading, keyText, type OpKind, type RedisOp } from './ops';
import { isConstant, unwrap, type Syntax } from './syntax';
import { retryLoopOf, retryOf, type RetryFact } from './retry';
import { firstElement } from './scripts';
import { boundName, identifierPattern, mentions, pathTo, statementOn, within } from './tree';
import type { UnitContext } from './units';
import { CLOCK_CALL, CLOCK_NAME, declaredValue, NULLISH, unconverted } from './values';

export type { Declaration } from './declarations';
export type { RetryFact } from './retry';

/** A value as the rules see it (LOCK005, LOCK006). */
export interface ValueFact {
  text: string;
  /** A literal: a string without holes, a number, a boolean. */
  constant: boolean;
  /** Reads a clock (`System.currentTimeMillis() + ttl`, `time.time()`). */
  clock: boolean;
  /** A name to look up among the file's declarations (`LOCK_VALUE`, `this.token`, `expireAt()`). */
  name?: string;
  /** The value is the result of calling `name`: only what it returns (a clock reading) counts. */
  called?: boolean;
}

export interface OpFact {
  kind: OpKind;
  /** UTF-16 offsets of the diagnostic: from the method name to the end of the call. */
  start: number;
  end: number;
  /** Offsets of the whole call. */
  callStart: number;
  callEnd: number;
  /** Offset of the innermost function holding the call; -1 outside functions. */
  fn: number;
  fnName: string;
  /** The class (or Go receiver type) the function belongs to, by name. */
  cls?: string;
  keyText?: string;
  /** Offsets of the key argument. */
  keyStart?: number;
  keyEnd?: number;
  /** Texts, helper names and globs the key stands for: two ops share a key when they share one. */
  keyShapes: string[];
  /** The key's glob (`lock:order:*`); `*` when nothing of it is literal. */
  keyGlob?: string;
  /** The key, its resolution or its glob names a lock. */
  keyLockish: boolean;
  hasExpiry?: boolean;
  value?: ValueFact;
  /** acquire: an EXPIRE of the same key follows in the function. */
  laterExpire?: boolean;
  /** acquire: a MULTI/pipeline was opened before it in the function. */
  inMulti?: boolean;
  /** acquire: the function also increments the key (a counter, not a lock). */
  counter?: boolean;
  /** acquire: inside a retry loop. */
  retry?: RetryFact;
  /** del: the test of a GET's result it runs under (LOCK004), as text. */
  guard?: string;
  /** del: inside a WATCH/MULTI transaction or under a transaction condition. */
  watched?: boolean;
  /** expire/extend: the reply (did the key still exist, was it still ours) is thrown away. */
  replyIgnored?: boolean;
  /** expire/extend: in a loop, a closure or a function named for renewal. */
  renewal?: boolean;
  /** scriptRelease: the script's name, when only the file's declarations can tell that it releases. */
  scriptName?: string;
  fix?: FixPlan;
}

export interface UnitFacts {
  ops: OpFact[];
  declarations: Declaration[];
  lua: LuaFinding[];
}

const RENEW_NAME = /renew|extend|refresh|heartbeat|keep_?alive|watchdog|prolong|touch|lease/i;
/** Calls that run a callback again and again: a renewal inside one is a watchdog. */
const TIMER = /setInterval|schedule|Timer|Ticker|every|interval|repeat/i;

const callee = (call: Node): string =>
  (call.childForFieldName('function') ?? call.childForFieldName('name') ?? call.childForFieldName('method'))?.text ??
  '';
const TRANSACTION = /pipe|multi|\btx\b|trans|batch/i;

const nameOf = (node: Node): string => node.childForFieldName('name')?.text ?? '';

/** A function's name, or the variable/property a function expression is assigned to. */
function functionName(path: Node[], index: number): string {
  const fn = path[index];
  const own = nameOf(fn);
  if (own) return own;
  for (let i = index - 1; i >= Math.max(0, index - 3); i--) {
    const holder = path[i];
    const name =
      holder.childForFieldName('name') ?? holder.childForFieldName('left') ?? holder.childForFieldName('key');
    if (name && !within(fn, name)) return name.text;
  }
  return '';
}

/** The assignments and declarations of a function, read once: [name, value, offset]. */
type Assignments = { name: string; value: Node; start: number }[];

const ASSIGNMENT_TYPES = [
  'short_var_declaration',
  'variable_declarator',
  'assignment',
  'assignment_expression',
  'local_variable_declaration',
];

function assignmentsIn(scope: Node): Assignments {
  const out: Assignments = [];
  for (const declaration of scope.descendantsOfType(ASSIGNMENT_TYPES)) {
    if (!declaration) continue;
    const target = declaration.childForFieldName('name') ?? declaration.childForFieldName('left');
    const value = declaredValue(declaration);
    if (!target || !value) continue;
    const name = target.type === 'expression_list' ? target.namedChild(0)?.text : target.text;
    const valueNode = value.type === 'expression_list' ? value.namedChild(0) : value;
    if (name && valueNode) out.push({ name, value: valueNode, start: declaration.startIndex });
  }
  return out;
}

/** The value last assigned to `name` before `before`, if any. */
function assignedBefore(assignments: Assignments, name: string, before: number): Node | undefined {
  let found: Node | undefined;
  for (const assignment of assignments)
    if (assignment.start <= before && assignment.name === name) found = assignment.value;
  return found;
}

/** The names a GET's result flows into: `old = get(k)`, then `t = Long.parseLong(old)`, and so on. */
function derivedNames(assignments: Assignments, first: string, after: number): Set<string> {
  const names = new Set([first]);
  const later = assignments.filter((assignment) => assignment.start > after && /^[\w$]+$/.test(assignment.name));
  for (let grew = true; grew;) {
    grew = false;
    for (const { name, value } of later) {
      if (names.has(name) || ![...names].some((known) => mentions(value, known))) continue;
      names.add(name);
      grew = true;
    }
  }
  return names;
}

const EXIT = /\b(return|throw|raise|continue|break|next)\b/;

interface Placed {
  op: RedisOp;
  path: Node[];
  fn: Node;
  fnIndex: number;
}

/** Reads the facts of one unit. */
export function extractUnit(unit: Node, context: UnitContext): UnitFacts {
  const { syntax, text } = context;
  const part = text.slice(unit.startIndex, unit.endIndex);
  // Only a unit that can hold a reported operation is read from the tree (most are caches, or no Redis at all).
  const ops = REPORTABLE.test(part) ? findOps(syntax, unit, text, context.mentionsRedis) : [];
  const lua =
    context.lua && (part.includes('redis.call') || part.includes('redis.pcall'))
      ? checkEmbeddedLua(unit, text, context.lua)
      : [];
  const declarations = readDeclarations(unit, context);
  // A unit of GETs and plain SETs (a cache) says nothing about locks.
  if (!ops.some((op) => REPORTED.has(op.kind))) return { ops: [], declarations, lua };

  const placed: Placed[] = ops.map((op) => {
    const path = op.path ?? pathTo(unit, op.call.node);
    let fnIndex = -1;
    for (let i = path.length - 2; i >= 0; i--) {
      if (syntax.functions.has(path[i].type)) {
        fnIndex = i;
        break;
      }
    }
    return { op, path, fn: fnIndex >= 0 ? path[fnIndex] : unit, fnIndex };
  });

  const facts: OpFact[] = [];
  const byFunction = new Map<number, Placed[]>();
  for (const p of placed) {
    const list = byFunction.get(p.fn.id) ?? [];
    list.push(p);
    byFunction.set(p.fn.id, list);
  }
  for (const group of byFunction.values()) facts.push(...new FunctionFacts(group, context).read());
  // A fix reaches no further than its unit (broken code can put an acquire outside any function).
  for (const fact of facts)
    if (fact.fix && !(fact.fix.start >= unit.startIndex && fact.fix.end <= unit.endIndex)) delete fact.fix;
  return { ops: facts.sort((a, b) => a.start - b.start), declarations, lua };
}

/** The facts of the operations of one function (or of a unit's code outside functions), read together. */
class FunctionFacts {
  private readonly syntax: Syntax;
  private readonly fn: Node;
  private readonly inFunction: boolean;
  private readonly params: Node | undefined;
  private readonly fnName: string;
  private readonly className: string | undefined;
  private readonly pathOf: Map<RedisOp, Node[]>;
  private readonly shapesOf = new Map<RedisOp, string[]>();
  private readonly globOf = new Map<RedisOp, string>();
  private assignmentCache: Assignments | undefined;

  constructor(
    private readonly group: Placed[],
    private readonly context: UnitContext,
  ) {
    const [first] = group;
    this.syntax = context.syntax;
    this.fn = first.fn;
    this.inFunction = first.fnIndex >= 0;
    this.params = this.inFunction
      ? (this.fn.childForFieldName('parameters') ?? this.fn.childForFieldName('receiver') ?? undefined)
      : undefined;
    this.fnName = this.inFunction ? functionName(first.path, first.fnIndex) : '';
    this.className = classOf(this.syntax, first.path, first.fnIndex) ?? context.className;
    this.pathOf = new Map(group.map((p) => [p.op, p.path]));
  }

  /** The facts of every reported operation of the group. */
  read(): OpFact[] {
    const out: OpFact[] = [];
    for (const placed of this.group) {
      // GETs, counters and transactions only inform the facts of the ops around them.
      if (REPORTED.has(placed.op.kind)) out.push(this.factOf(placed));
    }
    return out;
  }

  private factOf(placed: Placed): OpFact {
    const { op, path } = placed;
    const keyNode = op.key;
    const keyShapes = this.shapes(op, path);
    const fact: OpFact = {
      kind: op.kind,
      start: op.call.nameNode.startIndex,
      end: op.call.node.endIndex,
      callStart: op.call.node.startIndex,
      callEnd: op.call.node.endIndex,
      fn: this.inFunction ? this.fn.startIndex : -1,
      fnName: this.fnName,
      cls: this.className,
      keyText: op.keyText,
      keyStart: keyNode?.startIndex,
      keyEnd: keyNode?.endIndex,
      keyShapes,
      keyGlob: this.globOf.get(op),
      keyLockish: !!keyNode && LOCKISH.test(`${keyNode.text} ${keyShapes.join(' ')}`),
    };
    switch (op.kind) {
      case 'acquire':
        this.readAcquire(fact, placed);
        break;
      case 'del':
        this.readRelease(fact, placed);
        break;
      case 'getset':
        fact.value = this.valueFact(op.value ?? op.call.node, op.call.node.startIndex);
        // A GETSET's new value is read loosely: any clock-like word makes it a timestamp takeover.
        if (isClockReading(op.value)) fact.value.clock = true;
        fact.fix = this.fixFor(placed, this.pairedAcquire(op));
        break;
      case 'expire':
      case 'extend':
        this.readRenewal(fact, placed);
        break;
      case 'scriptRelease':
        fact.scriptName = op.scriptName;
        break;
    }
    return fact;
  }

  private readAcquire(fact: OpFact, placed: Placed): void {
    const { op } = placed;
    fact.hasExpiry = op.hasExpiry;
    fact.value = this.valueFact(op.value!, op.call.node.startIndex);
    fact.laterExpire = this.group.some(
      (p) =>
        p.op.kind === 'expire' && this.share(p.op, op) && p.op.call.nameNode.startIndex > op.call.nameNode.startIndex,
    );
    fact.inMulti = this.before('multi', op).length > 0;
    fact.counter = this.group.some((p) => p.op.kind === 'incr' && this.share(p.op, op));
    fact.retry = retryOf(this.syntax, this.retryLoop(placed));
    fact.fix = this.fixFor(placed, placed);
  }

  private readRelease(fact: OpFact, placed: Placed): void {
    const { op, path } = placed;
    const gets = this.group.filter((p) => p.op.kind === 'get' && this.share(p.op, op));
    fact.guard = gets.length ? guardingTest(this.syntax, placed, gets, this.assignments())?.text : undefined;
    fact.watched =
      this.before('watch', op).length > 0 ||
      this.group.some((p) => p.op.kind === 'watch' && within(op.call.node, p.op.call.node)) ||
      /AddCondition|\.Watch\(/.test(this.fn.text) ||
      // go-redis: rdb.Watch(ctx, func(tx *redis.Tx) error { ... tx.TxPipelined(...) }, key)
      path.some((node) => /call/.test(node.type) && /\.Watch$/.test(node.childForFieldName('function')?.text ?? ''));
    fact.fix = this.fixFor(placed, this.pairedAcquire(op));
  }

  private readRenewal(fact: OpFact, placed: Placed): void {
    const { op, path } = placed;
    fact.replyIgnored = replyIgnored(this.syntax, path, op, this.context.text);
    // A lease cut to under a second is an expiry forced on purpose, not a renewal.
    const forcedExpiry = op.ttlMs !== undefined && /^\d+$/.test(op.ttlMs) && Number(op.ttlMs) < 1000;
    fact.renewal =
      !forcedExpiry &&
      (op.kind === 'extend' ||
        RENEW_NAME.test(`${this.fnName} ${this.className ?? ''}`) ||
        path.slice(Math.max(0, placed.fnIndex), -1).some((node) => this.syntax.loops.has(node.type)) ||
        path.some((node) => /call|invocation/.test(node.type) && TIMER.test(callee(node))));
  }

  /** Ops of `kind` before `op` in the function. */
  private before(kind: OpKind, op: RedisOp): Placed[] {
    return this.group.filter((p) => p.op.kind === kind && p.op.call.nameNode.startIndex < op.call.nameNode.startIndex);
  }

  private pairedAcquire(op: RedisOp): Placed | undefined {
    return this.group.find((p) => p.op.kind === 'acquire' && this.share(p.op, op));
  }

  private assignments(): Assignments {
    return (this.assignmentCache ??= assignmentsIn(this.fn));
  }

  /** A name's value in the function before its end, or outside functions. */
  private readonly lookup: Lookup = (name) =>
    assignedBefore(this.assignments(), name, this.fn.endIndex) ?? this.context.constants?.(name);

  /** The texts, helpers and glob a key stands for; read on first use (most GETs never need them). */
  private shapes(op: RedisOp, path: Node[]): string[] {
    let known = this.shapesOf.get(op);
    if (!known) {
      known = op.key ? this.readShapes(op, op.key, path) : [];
      this.shapesOf.set(op, known);
    }
    return known;
  }

  private readShapes(op: RedisOp, key: Node, path: Node[]): string[] {
    const found = new Set<string>([op.keyText!]);
    // `delete(*keys)`, `del(...keys)`, `Del(ctx, keys...)`: the list the keys come from.
    const bare = /splat|spread|variadic/.test(key.type) ? (key.namedChild(0) ?? key) : key;
    const assigned = /^(identifier|variable_name)$/.test(bare.type)
      ? assignedBefore(this.assignments(), bare.text, op.call.node.startIndex)
      : undefined;
    // A script's keys in a variable (`keys = [lock_key]`): the first of them.
    const resolved = assigned && op.kind === 'scriptRelease' ? (firstElement(assigned) ?? assigned) : assigned;
    if (resolved) found.add(keyText(resolved));
    const loopHeader = resolved ? '' : this.loopHeaderOf(op, key, path);
    for (const helper of keyHelpers(`${key.text} ${resolved?.text ?? ''} ${loopHeader}`)) found.add(`fn:${helper}`);
    const glob = normalizeGlob(keyGlob(resolved ?? key, this.lookup));
    if (glob !== '*') found.add(`glob:${glob}`);
    this.globOf.set(op, glob);
    return [...found];
  }

  /** For a key that is a loop variable: the loop's header and its collection, which say what it holds. */
  private loopHeaderOf(op: RedisOp, key: Node, path: Node[]): string {
    const variable = unwrap(key);
    if (!/^(identifier|variable_name)$/.test(variable.type)) return '';
    for (let i = path.length - 2; i >= 0; i--) {
      if (!this.syntax.loops.has(path[i].type) && !/for|each|block|lambda/.test(path[i].type)) continue;
      const head = path[i].text.slice(0, 200);
      if (!identifierPattern(variable.text).test(head)) continue;
      const collection = /\b(?:in|of|range|:)\s+([\w$.]+)/.exec(head)?.[1];
      const listed = collection
        ? assignedBefore(this.assignments(), lastName(collection), op.call.node.startIndex)
        : undefined;
      return listed ? `${head} ${listed.text}` : head;
    }
    return '';
  }

  private share(a: RedisOp, b: RedisOp): boolean {
    const theirs = this.shapes(b, this.pathOf.get(b)!);
    return this.shapes(a, this.pathOf.get(a)!).some((shape) => theirs.includes(shape));
  }

  /** The function's operations on the lock's key. */
  private lockOps(lock: RedisOp): RedisOp[] {
    return this.group
      .filter((p) => p.op.key && this.share(p.op, lock) && p.op.kind !== 'multi' && p.op.kind !== 'watch')
      .map((p) => p.op);
  }

  private retryLoop(acquire: Placed): Node | undefined {
    return retryLoopOf(this.syntax, acquire.path, acquire.fnIndex, acquire.op.key);
  }

  /** The vetted-lock fix around `lock`; outside functions the statements around a lock belong to other units: none. */
  private fixFor(lock: Placed, acquire: Placed | undefined): FixPlan | undefined {
    if (!this.inFunction) return undefined;
    const ops = this.lockOps(lock.op);
    // A script run on the lock whose script only the file's declarations explain: a fix could
    // not tell whether it releases (and must go) or does other work (and must stay).
    if (ops.some((op) => op.scriptName !== undefined)) return undefined;
    return planFix(
      this.syntax,
      ops,
      this.context.text,
      acquire && {
        op: acquire.op,
        bound: boundName(this.syntax, acquire.path),
        retryLoop: this.retryLoop(acquire),
        fn: this.fn,
      },
    );
  }

  private valueFact(value: Node, at: number): ValueFact {
    let resolved = unconverted(unwrap(value));
    if (/^(identifier|variable_name)$/.test(resolved.type))
      resolved = unconverted(assignedBefore(this.assignments(), resolved.text, at) ?? resolved);
    const constant = isConstant(resolved) && !NULLISH.test(resolved.text);
    const clock = CLOCK_CALL.test(resolved.text) || (resolved.type === 'identifier' && CLOCK_NAME.test(resolved.text));
    const isName =
      !/call|invocation/.test(resolved.type) &&
      /identifier|variable_name|field|member|attribute|selector|instance_variable|constant|class_constant/.test(
        resolved.type,
      );
    const isCall = /call|invocation/.test(resolved.type) && !resolved.childForFieldName('arguments')?.namedChildCount;
    const parameter =
      isName && !!this.params && mentions(this.params, lastName(resolved.text)) && !/\.|->|@/.test(resolved.text);
    const name = parameter
      ? undefined
      : isName
        ? lastName(resolved.text)
        : isCall
          ? lastName(
              (resolved.childForFieldName('function') ?? resolved.childForFieldName('name') ?? resolved).text.replace(
                /\(.*$/s,
                '',
              ),
            )
          : undefined;
    return { text: value.text, constant, clock, name, ...(isCall && { called: true }) };
  }
}

const LOCKISH = /lock|mutex|mtx|leader|lease|semaphore/i;
const REPORTED: ReadonlySet<OpKind> = new Set(['acquire', 'del', 'getset', 'expire', 'extend', 'scriptRelease']);
/** Text that a unit with a reported operation must contain: a release, renewal or takeover name, or an NX flag. */
const REPORTABLE =
  /(?:\.|->|::)\s*(?:setnx|setifabsent|getset|getandset|stringgetset|del|delete|unlink|keydelete|remove|deletekey|delkey|deleteobject|removekey|expire|pexpire|expireat|pexpireat|keyexpire|eval\w*|scriptevaluate|run|evaluate|execute|do|\w*(?:release|unlock)\w*)(?:async)?\b|['"](?:setnx|del|unlink|getset|expire|pexpire|eval|evalsha)['"]|\bkeys\s*=|\bnx\b|notexists/i;
/** The class of the function at `path[fnIndex]`: an enclosing class node inside the unit, or the Go receiver type. */
function classOf(syntax: Syntax, path: Node[], fnIndex: number): string | undefined {
  if (fnIndex >= 0) {
    const goClass = syntax.classOf?.(path[fnIndex]);
    if (goClass) return goClass;
  }
  for (let i = path.length - 1; i >= 0; i--) {
    if (syntax.classes.has(path[i].type))
      return path[i].childForFieldName('name')?.text ?? `class@${path[i].startIndex}`;
  }
  return undefined;
}

/** Whether the reply of a lease renewal is dropped: a bare statement, or only its error looked at. */
function replyIgnored(syntax: Syntax, path: Node[], op: RedisOp, text: string): boolean {
  if (TRANSACTION.test(op.call.receiver?.text ?? '')) return false;
  const after = text.slice(op.call.node.endIndex, op.call.node.endIndex + 12);
  if (syntax.grammar === 'go' && /^\s*\.Err\(\)/.test(after)) return true;
  // `() -> jedis.expire(...)`, `() => redis.pexpire(...)`: an expression-bodied callback whose caller drops the value.
  const holder = path[path.length - 2];
  if (holder && syntax.functions.has(holder.type) && holder.childForFieldName('body')?.id === op.call.node.id)
    return true;
  const statement = statementOn(syntax, path);
  if (!statement) return false;
  if (
    !/expression_statement|^call$|^method_call$|defer_statement|go_statement/.test(statement.type) &&
    statement.id !== op.call.node.id
  )
    return false;
  // The statement is the call itself, awaited or not (and not `x = call`, `return call`).
  const inner = unwrap(statement.type === 'expression_statement' ? (statement.namedChild(0) ?? statement) : statement);
  return inner.id === op.call.node.id || unwrap(inner).id === op.call.node.id;
}

/** The test of a GET's result (or what was computed from it) that the DEL runs under or right after (LOCK004). */
function guardingTest(syntax: Syntax, del: Placed, gets: Placed[], assignments: Assignments): Node | undefined {
  const fn = del.fn;
  const delStatement = statementOn(syntax, del.path);
  for (const { op: get, path } of gets) {
    if (get.call.nameNode.startIndex >= del.op.call.nameNode.startIndex) continue;
    const bound = boundName(syntax, path);
    const names = bound ? derivedNames(assignments, bound, get.call.node.endIndex) : new Set<string>();
    const usesResult = (condition: Node) =>
      within(get.call.node, condition) || [...names].some((name) => mentions(condition, name));
    for (const conditional of fn.descendantsOfType([...syntax.conditionals])) {
      if (!conditional) continue;
      const condition = conditional.childForFieldName('condition');
      if (!condition || !usesResult(condition)) continue;
      // The DEL runs under the test, or right after it in the same block (an early return on a mismatch).
      if (within(del.op.call.node, conditional)) return condition;
      const earlyExit =
        !!delStatement &&
        conditional.endIndex <= del.op.call.nameNode.startIndex &&
        conditional.endIndex > get.call.nameNode.startIndex &&
        within(conditional, fn) &&
        sameBlock(delStatement, conditional, del.path) &&
        EXIT.test(conditional.text);
      if (earlyExit) return condition;
    }
  }
  return undefined;
}

/** Whether `conditional` is a statement of the block that holds `statement` (on `path`). */
function sameBlock(statement: Node, conditional: Node, path: Node[]): boolean {
  const index = path.findIndex((node) => node.id === statement.id);
  const block = index > 0 ? path[index - 1] : undefined;
  return !!block && block.namedChildren.some((child) => child?.id === conditional.id);
}
