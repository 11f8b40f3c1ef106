// What one unit of a document (an outermost function, or a declaration outside functions) says
// about locks, as plain data: its Redis operations with everything the rules need to know that
// only the syntax tree can tell (the function and class they sit in, what their key and value
// resolve to, the test a DEL runs under, whether a reply is used, the retry loop around an
// acquire), the names it declares, and its LOCK007 problems. Plain data can be kept per unit
// and reused while the unit's text is unchanged, so an edit re-reads only the units it touched.
import type { Node } from '@vscode/tree-sitter-wasm';
import { assignedBefore, assignmentsIn, type Assignments } from './assignments';
import { planFix, type FixPlan } from './fix';
import { EXIT, guardingTest, type Placed } from './guards';
import { POLLER_CALL, POLLS_OWN_METHOD, readPollers, type Poller } from './pollers';
import { replyIgnored } from './replies';
import { keyBuilder, keyGlob, keyHelpers, lastName, normalizeGlob, type Lookup } from './keys';
import { readDeclarations, type Declaration } from './declarations';
import { checkEmbeddedLua, type LuaFinding } from './lua';
import { commandKind, findOps, isClockReading, keyText, type OpKind, type RedisOp } from './ops';
import { isConstant, unwrap, type Syntax } from './syntax';
import { retryLoopOf, retryOf, type RetryFact } from './retry';
import { firstElement } from './scripts';
import { boundName, classOf, identifierPattern, mentions, pathTo, within } from './tree';
import type { UnitContext } from './units';
import { CLOCK_CALL, CLOCK_NAME, DEADLINE_NAME, isDeadline, NULLISH, unconverted } from './values';

export type { Declaration } from './declarations';
export type { Poller } from './pollers';
export type { RetryFact } from './retry';

/** A value as the rules see it (LOCK005, LOCK006). */
export interface ValueFact {
  text: string;
  /** A literal: a string without holes, a number, a boolean. */
  constant: boolean;
  /** Reads a clock (`System.currentTimeMillis() + ttl`, `time.time()`). */
  clock: boolean;
  /** The clock reading is an expiry time (`now + ttl`, a name like `expires_at`), not only when the lock was taken. */
  deadline?: boolean;
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
  /** acquire: the function reads the key back with GET (to compare its value). */
  valueRead?: boolean;
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
  pollers: Poller[];
}

const RENEW_NAME = /renew|extend|refresh|heartbeat|keep_?alive|watchdog|prolong|touch|lease/i;
/** Functions that take a lock: an EXPIRE in one sets the lease of the acquire. */
const ACQUIRE_NAME = /acquire|obtain|^take|try_?lock|^lock$|^lock_|grab|claim/i;
/** Calls that run a callback again and again: a renewal inside one is a watchdog. */
const TIMER = /setInterval|schedule|Timer|Ticker|every|interval|repeat/i;

const callee = (call: Node): string =>
  (call.childForFieldName('function') ?? call.childForFieldName('name') ?? call.childForFieldName('method'))?.text ??
  '';

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

/** Calls that run the callback they are given at once, as part of the caller: a pipeline, a transaction. */
const INLINE_CALLBACK = /^(?:pipeline|pipelined|txpipelined|transaction|multi|batch)$/i;

/** Whether the function at `path[index]` is a callback a pipeline or transaction call runs in place (Predis, go-redis). */
function runsInline(syntax: Syntax, path: Node[], index: number): boolean {
  for (let i = index - 1; i >= Math.max(0, index - 3); i--) {
    const call = syntax.call(path[i]);
    if (call) return INLINE_CALLBACK.test(call.nameNode.text);
  }
  return false;
}

/** A loop whose condition polls a GET: `while r.get(key):`, `for rdb.Get(ctx, key).Val() != ""`. */
const POLLED_GET = /\b(?:while|until|for)\b[^\n]*(?:\.|->)\s*(?:get|Get|StringGet)(?:Async)?\s*\(/;

/** Reads the facts of one unit. */
export function extractUnit(unit: Node, context: UnitContext): UnitFacts {
  const { syntax, text } = context;
  const part = text.slice(unit.startIndex, unit.endIndex);
  // Only a unit that can hold a reported operation is read from the tree (most are caches, or no Redis at all).
  const reportable =
    REPORTABLE.test(part) || POLLED_GET.test(part) || (!!context.ownCommands && OWN_REPORTABLE.test(part));
  const ops = reportable ? findOps(syntax, unit, text, context.mentionsRedis, context.ownCommands) : [];
  const lua =
    context.lua && (part.includes('redis.call') || part.includes('redis.pcall'))
      ? checkEmbeddedLua(unit, text, context.lua)
      : [];
  const declarations = readDeclarations(unit, context);
  const pollers = POLLS_OWN_METHOD.test(part) && POLLER_CALL.test(part) ? readPollers(unit, syntax, context) : [];
  // A unit of GETs and plain SETs (a cache) says nothing about locks, unless it polls a GET in a loop.
  const says = (op: RedisOp) =>
    REPORTED.has(op.kind) ||
    op.kind === 'watch' ||
    (op.kind === 'get' && !!op.path?.some((n) => syntax.loops.has(n.type)));
  if (!ops.some(says)) return { ops: [], declarations, lua, pollers };

  const placed: Placed[] = ops.map((op) => {
    const path = op.path ?? pathTo(unit, op.call.node);
    let fnIndex = -1;
    for (let i = path.length - 2; i >= 0; i--) {
      if (syntax.functions.has(path[i].type) && !runsInline(syntax, path, i)) {
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
  return { ops: facts.sort((a, b) => a.start - b.start), declarations, lua, pollers };
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
  private unitAssignmentCache: Assignments | undefined;

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
      if (this.implements(placed.op)) continue;
      if (REPORTED.has(placed.op.kind)) out.push(this.factOf(placed));
      else if (placed.op.kind === 'set' && this.optimistic(placed.op)) out.push(this.optimisticAcquire(placed));
      else if (placed.op.kind === 'get') {
        const polled = this.polledGet(placed);
        if (polled) out.push(polled);
      }
    }
    return out;
  }

  /**
   * Whether the function implements the command it runs: it is named like it and passes its own
   * parameter on as the key (`def setnx(self, name, value): return self.execute_command('SETNX', name, value)`,
   * a subclass's `setnx(key, value) { return jedis.setnx(key, value); }`). Its callers are the code to judge.
   */
  private implements(op: RedisOp): boolean {
    if (!this.params || !op.key || commandKind(this.fnName) !== op.kind) return false;
    const key = unwrap(op.key);
    const name = /splat|spread|variadic|list_splat/.test(key.type) ? (key.namedChild(0) ?? key) : key;
    return /^[$\w]+$/.test(name.text) && mentions(this.params, name.text);
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
    // Only a clock reading (or a helper's value, which may be one) can make the timestamp algorithm.
    if (fact.value.clock || fact.value.called)
      fact.valueRead = this.group.some((p) => p.op.kind === 'get' && this.share(p.op, op));
    fact.retry = retryOf(this.syntax, this.retryLoop(placed));
    fact.fix = this.fixFor(placed, placed);
  }

  /**
   * A GET polled in a busy retry loop that takes no lock itself (`while r.get(key): pass`, a takeover
   * loop of GET and GETSET): LOCK010 is reported on it, as on an acquire.
   */
  private polledGet(placed: Placed): OpFact | undefined {
    const loop = this.retryLoop(placed);
    if (!loop) return undefined;
    const retry = retryOf(this.syntax, loop);
    // Not when the loop takes the lock itself (reported there), nor a WATCH transaction retried on a conflict.
    const inLoop = (kind: OpKind) => this.group.some((p) => p.op.kind === kind && within(p.op.call.node, loop));
    if (!retry || inLoop('acquire') || inLoop('watch') || inLoop('del')) return undefined;
    const fact = this.factOf(placed);
    fact.retry = retry;
    return fact;
  }

  /** A plain SET of a key the function WATCHes, in the transaction after it: the write of an optimistic acquire. */
  private optimistic(op: RedisOp): boolean {
    const watch = this.before('watch', op).find((w) => this.share(w.op, op));
    if (!watch || !this.before('multi', op).length) return false;
    // It takes a lock when the function first makes sure the key is free: a GET of it whose result
    // decides an early exit (`if pipe.get(key) is not None: raise Busy`). A WATCH that only guards
    // an update of the value (read, change, write back) takes nothing.
    const gets = this.before('get', op).filter(
      (get) => this.share(get.op, op) && get.op.call.node.startIndex > watch.op.call.node.startIndex,
    );
    return gets.some((get) => {
      const bound = boundName(this.syntax, get.path);
      return this.fn.descendantsOfType([...this.syntax.conditionals]).some((conditional) => {
        const condition = conditional?.childForFieldName('condition');
        return (
          !!conditional &&
          !!condition &&
          conditional.startIndex < op.call.node.startIndex &&
          (within(get.op.call.node, condition) || mentions(condition, bound)) &&
          EXIT.test(conditional.text)
        );
      });
    });
  }

  /** The optimistic acquire's facts: the transaction makes the SET and an EXPIRE in it one step. */
  private optimisticAcquire(placed: Placed): OpFact {
    const fact = this.factOf(placed);
    fact.kind = 'acquire';
    this.readAcquire(fact, placed);
    fact.hasExpiry ||= fact.laterExpire;
    fact.laterExpire = false;
    // The fix replaces an NX acquire; the WATCH, GET and EXEC around this one are not its to remove.
    delete fact.fix;
    return fact;
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
    fact.replyIgnored = replyIgnored(this.syntax, path, op, this.context.text, this.fn);
    // A lease cut to under a second is an expiry forced on purpose, not a renewal.
    const forcedExpiry = op.ttlMs !== undefined && /^\d+$/.test(op.ttlMs) && Number(op.ttlMs) < 1000;
    // An expiry set while taking the lock (`acquire()` sets the lease a step after the SETNX) is the lease, not a renewal.
    const acquiring = ACQUIRE_NAME.test(this.fnName) && !RENEW_NAME.test(this.fnName);
    fact.renewal =
      !forcedExpiry &&
      !acquiring &&
      (op.kind === 'extend' ||
        // A test named for what it tests (`test_heartbeat`) is no renewal by its name.
        (RENEW_NAME.test(`${this.fnName} ${this.className ?? ''}`) && !/^test/i.test(this.fnName)) ||
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

  /** The value last assigned to `name` before `before`: in the function, else (a closure) in the unit around it. */
  private valueOf(name: string, before: number): Node | undefined {
    const unit = this.group[0].path[0];
    return (
      assignedBefore(this.assignments(), name, before) ??
      (unit.id !== this.fn.id
        ? assignedBefore((this.unitAssignmentCache ??= assignmentsIn(unit)), name, before)
        : undefined)
    );
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
      ? this.valueOf(bare.text, op.call.node.startIndex)
      : undefined;
    // Keys in a list variable (`keys = [lock_key]`, then `delete(*keys)` or a script's keys=keys): the first of them.
    const listed = op.kind === 'scriptRelease' || op.kind === 'del';
    const resolved = assigned && listed ? (firstElement(assigned) ?? assigned) : assigned;
    if (resolved) found.add(keyText(resolved));
    const loop = resolved ? undefined : this.loopHeaderOf(op, key, path);
    for (const helper of keyHelpers(`${key.text} ${resolved?.text ?? ''} ${loop?.head ?? ''}`))
      found.add(`fn:${helper}`);
    const builder = keyBuilder(resolved ?? bare);
    if (builder) found.add(`fn:${builder}`);
    const glob = normalizeGlob(keyGlob(resolved ?? key, this.lookup));
    if (glob !== '*') found.add(`glob:${glob}`);
    this.globOf.set(op, glob);
    for (const list of this.collectionsOf(key, loop?.collection ?? '')) found.add(`elem:${this.fn.startIndex}:${list}`);
    return [...found];
  }

  /**
   * The lists a key is an element of, in this function: the names in the collection its loop walks
   * (`for key in lock_keys`, `zip(lock_keys, holders)`), or the list it indexes (`lockKeys[i]`).
   */
  private collectionsOf(key: Node, collection: string): string[] {
    const indexed = /^([$\w.>-]+?)\s*(?:\[[^\]]*\]|\.(?:get|Get|ElementAt)\(\s*[$\w]+\s*\))$/.exec(unwrap(key).text);
    if (indexed) return [lastName(indexed[1])];
    return [...collection.matchAll(/\b([$A-Za-z_][\w$]*)\b(?!\s*\()/g)].map((match) => match[1]);
  }

  /** For a key that is a loop variable: the loop's header and its collection, which say what it holds. */
  private loopHeaderOf(op: RedisOp, key: Node, path: Node[]): { head: string; collection: string } | undefined {
    const variable = unwrap(key);
    if (!/^(identifier|variable_name)$/.test(variable.type)) return undefined;
    for (let i = path.length - 2; i >= 0; i--) {
      const type = path[i].type;
      // A loop, a Ruby block (`each do |key|`) or a lambda binds the variable; a statement block does not.
      const binds =
        this.syntax.loops.has(type) ||
        (this.syntax.grammar === 'ruby' ? /block|lambda/.test(type) : /for|each|lambda/.test(type));
      if (!binds) continue;
      const head = path[i].text.slice(0, 200);
      if (!identifierPattern(variable.text).test(head)) continue;
      // Ruby: `lock_keys.each do |key|`: the collection is what the block's call is made on.
      const caller = this.syntax.grammar === 'ruby' && /block/.test(path[i].type) && i > 0 ? path[i - 1] : undefined;
      if (!caller && !this.syntax.loops.has(path[i].type)) return { head, collection: '' };
      const body = path[i].childForFieldName('body');
      const header = path[i].text.slice(0, body ? body.startIndex - path[i].startIndex : 200);
      const collection = caller
        ? caller.text.slice(0, path[i].startIndex - caller.startIndex)
        : (/(?:\b(?:in|of|range)|:)\s+(.*)$/s.exec(header)?.[1] ?? '');
      const name = /^[\w$.]+/.exec(collection)?.[0];
      const listed = name ? this.valueOf(lastName(name), op.call.node.startIndex) : undefined;
      return { head: listed ? `${head} ${listed.text}` : head, collection };
    }
    return undefined;
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
    // `this.setnx(...)`: the class's own command; the helper needs a client, which the object is not.
    if (/^(?:this|self|\$this)$/.test(acquire?.op.call.receiver?.text ?? '')) return undefined;
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
    const deadline = isDeadline(resolved.text) || (clock && DEADLINE_NAME.test(lastName(resolved.text)));
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
    return { text: value.text, constant, clock, deadline, name, ...(isCall && { called: true }) };
  }
}

const LOCKISH = /lock|mutex|mtx|leader|lease|semaphore/i;
const REPORTED: ReadonlySet<OpKind> = new Set(['acquire', 'del', 'getset', 'expire', 'extend', 'scriptRelease']);
/**
 * Text that a unit with a reported operation must contain: a release, renewal or takeover name, or
 * an NX flag (Valkey GLIDE's too: `ONLY_IF_DOES_NOT_EXIST`, `onlyIfDoesNotExist`, `conditionalSetOnlyIfNotExist()`).
 */
const REPORTABLE =
  /(?:\.|->|::)\s*(?:setnx|setifabsent|getset|getandset|stringgetset|del|delete|unlink|keydelete|remove|deletekey|delkey|deleteobject|removekey|expire|pexpire|expireat|pexpireat|keyexpire|eval\w*|scriptevaluate|run|evaluate|invoke_?script\w*|\w*(?:release|unlock)\w*)(?:async)?\b|\.\s*execute\s*\(\s*(?:new\s+)?[\w.]*(?:script|lua|release|unlock)|(?:script|lua|release|unlock)\w*\s*\.\s*Do\b|(?:\.|->)\s*watch\s*\(|['"](?:setnx|del|unlink|getset|expire|pexpire|eval|evalsha|watch)['"]|\bkeys\s*=|\bnx\b|notexists|only_?if_?does_?not_?exist|conditionalSetOnlyIfNotExist/i;
/** The same, for a class's own commands called without a receiver (`del(key)`). */
const OWN_REPORTABLE =
  /(?<![\w$.>:@])(?:setnx|setifabsent|getset|getandset|del|delete|unlink|expire|pexpire|expireat|pexpireat)(?:async)?\b|\bnx\b/i;
