// LOCK001..LOCK006: reasoning over the Redis operations of one function (and, for releases, of
// one class): which key was acquired how, what expires it, what deletes it and under which test.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RuleCode } from '../catalogue';
import { planFix, type FixPlan } from './fix';
import { isClockReading, resolve, type RedisOp } from './ops';
import type { Syntax } from './syntax';

export interface Finding {
  code: RuleCode;
  message: string;
  /** UTF-16 offsets into the document. */
  start: number;
  end: number;
  /** What the vetted snippet replaces (LOCK001..LOCK006). */
  fix?: FixPlan;
}

interface Placed {
  op: RedisOp;
  fn: Node;
  cls?: string;
}

function place(syntax: Syntax, op: RedisOp): Placed {
  let fn: Node | undefined;
  let cls: string | undefined;
  for (let node = op.call.node.parent; node; node = node.parent) {
    if (!fn && syntax.functions.has(node.type)) {
      fn = node;
      cls = syntax.classOf?.(node);
    }
    if (!cls && syntax.classes.has(node.type)) cls = `class:${node.id}`;
  }
  return { op, fn: fn ?? op.call.node.tree.rootNode, cls };
}

const short = (text: string) => (text.length > 40 ? `${text.slice(0, 37)}...` : text);

function span(op: RedisOp): { start: number; end: number } {
  return { start: op.call.nameNode.startIndex, end: op.call.node.endIndex };
}

/** The variable a call's result is stored in (`v = redis.get(k)`, `v, err := ...`), if any. */
export function boundName(syntax: Syntax, call: Node): string | undefined {
  for (let node = call.parent; node && !syntax.blocks.has(node.type); node = node.parent) {
    if (/declarator|assignment|short_var_declaration|var_spec|local_variable_declaration/.test(node.type)) {
      const target = node.childForFieldName('name') ?? node.childForFieldName('left') ?? node.namedChild(0);
      if (!target) return undefined;
      const identifier = /identifier|variable_name/.test(target.type)
        ? target
        : target.descendantsOfType(['identifier', 'variable_name'])[0];
      return identifier?.text;
    }
    if (node.parent && syntax.blocks.has(node.parent.type)) return undefined;
  }
  return undefined;
}

const EXIT = /\b(return|throw|raise|continue|break)\b/;

/** The statement (a child of a block) that holds `node`. */
function statementOf(syntax: Syntax, node: Node): Node | undefined {
  for (let current: Node | null = node; current?.parent; current = current.parent) {
    if (syntax.blocks.has(current.parent.type)) return current;
  }
  return undefined;
}

const within = (inner: Node, outer: Node) => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

/** The test of `get`'s result that `del` runs under or right after: GET, compare, then DEL (LOCK004). */
function guardingTest(syntax: Syntax, del: Placed, gets: Placed[]): Node | undefined {
  for (const { op: get } of gets) {
    if (get.call.nameNode.startIndex >= del.op.call.nameNode.startIndex) continue;
    const name = boundName(syntax, get.call.node);
    const mentions = (condition: Node) =>
      within(get.call.node, condition) ||
      (!!name && new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(condition.text));
    const delStatement = statementOf(syntax, del.op.call.node);
    for (const conditional of del.fn.descendantsOfType([...syntax.conditionals])) {
      if (!conditional) continue;
      const condition = conditional.childForFieldName('condition');
      if (!condition || !mentions(condition)) continue;
      // The DEL runs under the test, or right after it in the same block (an early return on a mismatch).
      if (within(del.op.call.node, conditional)) return condition;
      const earlyExit =
        conditional.parent?.id === delStatement?.parent?.id &&
        conditional.endIndex > get.call.nameNode.startIndex &&
        conditional.endIndex <= del.op.call.nameNode.startIndex &&
        EXIT.test(conditional.text);
      if (earlyExit) return condition;
    }
  }
  return undefined;
}

/** A lock, not a cache entry: acquired with NX nearby, named like one, or compared with an owner token. */
const LOCK_NAME = /lock|mutex|mtx|leader|lease/i;
const OWNER_NAME = /token|owner|uuid|guid|random|nonce|holder|ident|tag|lock|lease|worker|instance/i;

export function checkLocks(syntax: Syntax, ops: RedisOp[], text: string): Finding[] {
  const placed = ops.map((op) => place(syntax, op));
  const findings: Finding[] = [];
  const sameKey = (a: Placed, b: Placed) => a.op.keyText !== undefined && a.op.keyText === b.op.keyText;
  const inFunction = (a: Placed, kind: RedisOp['kind']) =>
    placed.filter((b) => b.op.kind === kind && b.fn.id === a.fn.id && sameKey(a, b));
  const inClass = (a: Placed, kind: RedisOp['kind']) =>
    placed.filter((b) => b.op.kind === kind && sameKey(a, b) && (b.fn.id === a.fn.id || (!!a.cls && a.cls === b.cls)));
  const lockOps = (lock: Placed) =>
    placed.filter((p) => p.fn.id === lock.fn.id && sameKey(p, lock) && p.op.kind !== 'multi').map((p) => p.op);
  const fixFor = (lock: Placed, acquire: RedisOp | undefined) =>
    planFix(syntax, lockOps(lock), acquire, acquire && boundName(syntax, acquire.call.node), text);

  for (const lock of placed) {
    const { op } = lock;
    if (op.kind !== 'acquire') continue;
    const key = short(op.key!.text);
    const fix = fixFor(lock, op);
    if (!op.hasExpiry) {
      const laterExpire = inFunction(lock, 'expire').find(
        (expire) => expire.op.call.nameNode.startIndex > op.call.nameNode.startIndex,
      );
      if (laterExpire) {
        const inMulti = placed.some(
          (p) =>
            p.op.kind === 'multi' &&
            p.fn.id === lock.fn.id &&
            p.op.call.nameNode.startIndex < op.call.nameNode.startIndex,
        );
        findings.push({
          code: 'LOCK001',
          message: inMulti
            ? `SETNX then EXPIRE on ${key} inside MULTI/pipeline: EXPIRE runs even when SETNX failed, so every contender extends the holder's lease. Take the lock and its lease in one command: SET key token NX PX ttl.`
            : `SETNX and EXPIRE on ${key} are two commands: if the process dies between them, the lock never expires and nobody can take it again. Take the lock and its lease in one command: SET key token NX PX ttl.`,
          ...span(op),
          fix,
        });
      } else {
        findings.push({
          code: 'LOCK002',
          message: `Lock ${key} is taken with NX but no expiry: if the holder crashes or hangs, the lock stays forever. Set the lease in the same command: SET key token NX PX ttl.`,
          ...span(op),
          fix,
        });
      }
    }
    if (op.constantValue) {
      findings.push({
        code: 'LOCK006',
        message: `Lock ${key} holds the constant ${short(op.value!.text)}: the value does not say who owns the lock, so no release can check it is still yours. Store a unique token per holder (host:pid:random).`,
        ...span(op),
        fix,
      });
    }
  }

  for (const release of placed) {
    const { op } = release;
    if (op.kind === 'del') {
      const key = short(op.key!.text);
      const gets = inFunction(release, 'get');
      const acquires = inClass(release, 'acquire');
      const fix = fixFor(release, acquires.find((a) => a.fn.id === release.fn.id)?.op);
      const test = gets.length ? guardingTest(syntax, release, gets) : undefined;
      const isLock = () =>
        acquires.length > 0 || LOCK_NAME.test(resolve(syntax, op.key!).text) || OWNER_NAME.test(test!.text);
      if (test && isLock()) {
        findings.push({
          code: 'LOCK004',
          message: `GET, compare, then DEL of ${key} is not atomic: the lease can expire between the GET and the DEL, and the DEL then removes the next holder's lock. Compare and delete in one Lua script (the pack's release).`,
          ...span(op),
          fix,
        });
      } else if (acquires.length) {
        findings.push({
          code: 'LOCK003',
          message: `DEL ${key} releases the lock without checking who holds it: if this holder's lease expired, it deletes the next holder's lock. Release with compare-and-delete (the pack's release script).`,
          ...span(op),
          fix,
        });
      }
    }
    if (op.kind === 'getset' && (inClass(release, 'acquire').length || isClockReading(op.value))) {
      findings.push({
        code: 'LOCK005',
        message: `GETSET takeover of ${short(op.key!.text)}: timestamp locks depend on synchronised clocks, and a client that loses the takeover race still overwrites the winner's expiry. Let Redis expire the lock: SET key token NX PX ttl.`,
        ...span(op),
        fix: fixFor(release, inFunction(release, 'acquire')[0]?.op),
      });
    }
  }
  return findings.sort((a, b) => a.start - b.start || a.code.localeCompare(b.code));
}
