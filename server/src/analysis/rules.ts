// The rules over a document's facts (facts.ts): each rule names the operations it looks at, the
// test that flags one, and its message. Pairing an acquire with its release, and names with
// their declarations, happens here across the whole document, so it works across functions,
// classes and their helpers; everything that needs the syntax tree was decided per unit.
import type { RuleCode, Severity } from '../catalogue';
import type { Declaration, OpFact, Poller, RetryFact } from './facts';
import type { FixPlan } from './fix';
import type { OpKind } from './ops';
import { unsetField } from './retry';

export interface Finding {
  code: RuleCode;
  message: string;
  /** UTF-16 offsets into the document. */
  start: number;
  end: number;
  /** What the vetted snippet replaces (LOCK001..LOCK006, LOCK010). */
  fix?: FixPlan;
  /** Other places of the same problem (LOCK007: the script's other calls), shown as related information. */
  related?: { start: number; end: number; message: string }[];
  /** A lesser form of the problem (LOCK007 on keys built on a declared key's prefix): reported one step lower. */
  minor?: boolean;
}

const LOWER: Record<Severity, Severity> = {
  error: 'warning',
  warning: 'information',
  information: 'hint',
  hint: 'hint',
  off: 'off',
};

/** A finding's severity: the rule's, one step lower for a minor finding. */
export function findingSeverity(ruleSeverity: Severity, finding: Pick<Finding, 'minor'>): Severity {
  return finding.minor ? LOWER[ruleSeverity] : ruleSeverity;
}

/** A lock, not a cache entry or a counter: named like one. */
const LOCKISH = /lock|mutex|mtx|leader|lease|semaphore/i;
/** Functions that take or give back a lock. */
const LOCK_FUNCTION = /lock|mutex|acquire|release|leader|lease|semaphore/i;
/** Tests of a GET's result that compare owners. */
const OWNER_NAME = /token|owner|uuid|guid|random|nonce|holder|ident|tag|lock|lease|worker|instance|time|expire/i;
/** Not locks: counters and rate limiters (by key, function or class), cache and session backends (by class). */
const COUNTER = /rate|limit|throttl|counter|quota|bucket|\bhits?\b|visit|views?\b|stats|metric/i;
const CACHE_CLASS = /cache|session/i;

/** `0.05`, `0.2`, `5`: a duration short enough to need its fraction. */
const formatMs = (ms: number) => String(Number(ms.toPrecision(3)));

const short = (text: string) => (text.length > 40 ? `${text.slice(0, 37)}...` : text);

/** The document's facts, with the questions the rules ask across them. */
export class DocumentFacts {
  private readonly declarations = new Map<string, Declaration[]>();

  constructor(
    readonly ops: OpFact[],
    declarations: Declaration[],
    /** The document, for the few questions only its whole text answers (is a field ever set). */
    private readonly text = '',
    /** Busy loops that poll a try-acquire method of their class. */
    private readonly pollers: Poller[] = [],
  ) {
    for (const declaration of declarations) {
      const list = this.declarations.get(declaration.name) ?? [];
      list.push(declaration);
      this.declarations.set(declaration.name, list);
    }
  }

  declared(name: string | undefined): Declaration[] {
    return (name && this.declarations.get(name)) || [];
  }

  /** Evidence that `op` is about a lock: its key, its function or its class says so. */
  lockish(op: OpFact): boolean {
    return op.keyLockish || LOCK_FUNCTION.test(op.fnName) || LOCKISH.test(op.cls ?? '');
  }

  /** A cache, counter or rate limiter, and nothing says lock. */
  notALock(op: OpFact): boolean {
    if (op.keyLockish) return false;
    const names = `${op.keyText ?? ''} ${op.fnName} ${op.cls ?? ''}`;
    return !LOCKISH.test(names) && (COUNTER.test(names) || CACHE_CLASS.test(op.cls ?? ''));
  }

  /** Ops of `kind` on the same key as `op`: in its function, its class, or (with lock evidence) its module. */
  paired(op: OpFact, kind: OpKind): OpFact[] {
    return this.ops.filter((other) => {
      if (other.kind !== kind || !other.keyShapes.some((shape) => op.keyShapes.includes(shape))) return false;
      if (other.fn === op.fn) return true;
      if (this.notALock(op) || this.notALock(other)) return false;
      if (op.cls && op.cls === other.cls) return true;
      return this.lockish(op) || this.lockish(other);
    });
  }

  /**
   * An NX acquire of a lock: named like one (its key, function or class), or used like one (released
   * after it in its function, taken over with GETSET, retried in a loop, released by a
   * compare-and-delete script). A flag set with NX and deleted elsewhere (a pause flag, a
   * "once" marker, a test's key) is not a lock.
   */
  isLockAcquire(op: OpFact): boolean {
    if (op.counter) return false;
    if (this.releasedByScript(op)) return true;
    if (this.notALock(op)) return false;
    return this.lockish(op) || this.usedLikeLock(op);
  }

  private usedLikeLock(op: OpFact): boolean {
    // Retried in a loop, or holding an expiry time (the timestamp algorithm's "held until").
    if (op.retry || this.pollers.some((poller) => poller.callee === op.fnName) || this.timestampLock(op)) return true;
    return this.ops.some(
      (other) =>
        (other.kind === 'del' || other.kind === 'getset') &&
        other.fn === op.fn &&
        other.start > op.start &&
        other.keyShapes.some((shape) => op.keyShapes.includes(shape)),
    );
  }

  /** Whether a script run is a compare-and-delete release: the call says so, or the file declares its script as one. */
  isScriptRelease(op: OpFact): boolean {
    return op.kind === 'scriptRelease' && (!op.scriptName || this.releaseScript(op.scriptName, 0));
  }

  private releaseScript(name: string, depth: number): boolean {
    return this.declared(name).some(
      (d) => d.releaseScript || (!!d.scriptFrom && depth < 3 && this.releaseScript(d.scriptFrom, depth + 1)),
    );
  }

  /** A compare-and-delete script releases `op`'s key in its function or class: the key is a lock. */
  releasedByScript(op: OpFact): boolean {
    return this.ops.some(
      (other) =>
        other.kind === 'scriptRelease' &&
        (other.fn === op.fn || (!!op.cls && other.cls === op.cls)) &&
        other.keyShapes.some((shape) => op.keyShapes.includes(shape)) &&
        this.isScriptRelease(other),
    );
  }

  /** The acquire's value is the same for every holder: a literal, a constant, a per-process token. */
  constantValue(op: OpFact): 'literal' | 'process' | undefined {
    const value = op.value;
    if (!value) return undefined;
    if (value.constant) return 'literal';
    if (value.called) return undefined;
    const declared = this.declared(value.name);
    if (declared.some((d) => d.literal)) return 'literal';
    if (declared.some((d) => d.perProcess && d.generated)) return 'process';
    return undefined;
  }

  /**
   * How the retry loop around `op` polls (it sleeps under 10 ms, not at all, or for a field nothing
   * sets), or the loop that polls the method `op` is in (`while !try_to_get_lock`).
   */
  polling(op: OpFact): string | undefined {
    if (op.retry) return this.busy(op.retry);
    if (op.kind !== 'acquire' || !op.fnName) return undefined;
    for (const poller of this.pollers) {
      if (poller.callee !== op.fnName || (poller.cls ?? '') !== (op.cls ?? '')) continue;
      const sleep = this.busy(poller.retry);
      if (sleep) return `(the loop that calls ${op.fnName}()) ${sleep}`;
    }
    return undefined;
  }

  private busy(retry: RetryFact): string | undefined {
    if (retry.sleepField)
      return unsetField(this.text, retry.sleepField)
        ? `sleeps for ${retry.sleepField} (nothing in this file sets it, so 0 ms)`
        : undefined;
    return retry.sleepMs === undefined ? 'does not sleep' : `sleeps only ${formatMs(retry.sleepMs)} ms`;
  }

  timestampValue(op: OpFact): boolean {
    return !!op.value && (op.value.clock || this.declared(op.value.name).some((d) => d.clock));
  }

  /**
   * The timestamp algorithm: the value is an expiry time, or the code reads it back to compare. A
   * timestamp that only records when the lock was taken is not one.
   */
  timestampLock(op: OpFact): boolean {
    if (!this.timestampValue(op)) return false;
    return !!op.valueRead || !!op.value?.deadline || this.declared(op.value?.name).some((d) => d.deadline);
  }
}

interface Rule {
  code: RuleCode;
  on: OpKind;
  /** Details for the message when `op` breaks the rule. */
  check(op: OpFact, facts: DocumentFacts): Record<string, string> | undefined;
  message(details: Record<string, string>): string;
  /** Whether the vetted-lock quick fix applies (to the plan made for the op). */
  fixable: boolean | ((plan: FixPlan) => boolean);
}

const key = (op: OpFact) => short(op.keyText ?? '');

export const RULES: Rule[] = [
  {
    code: 'LOCK001',
    on: 'acquire',
    fixable: true,
    check: (op, facts) =>
      !op.hasExpiry && op.laterExpire && facts.isLockAcquire(op)
        ? { key: key(op), multi: op.inMulti ? 'yes' : '' }
        : undefined,
    message: ({ key, multi }) =>
      multi
        ? `SETNX then EXPIRE on ${key} inside MULTI/pipeline: EXPIRE runs even when SETNX failed, so every contender extends the holder's lease. Take the lock and its lease in one command: SET key token NX PX ttl.`
        : `SETNX and EXPIRE on ${key} are two commands: if the process dies between them, the lock never expires and nobody can take it again. Take the lock and its lease in one command: SET key token NX PX ttl.`,
  },
  {
    code: 'LOCK002',
    on: 'acquire',
    fixable: true,
    check: (op, facts) => (!op.hasExpiry && !op.laterExpire && facts.isLockAcquire(op) ? { key: key(op) } : undefined),
    message: ({ key }) =>
      `Lock ${key} is taken with NX but no expiry: if the holder crashes or hangs, the lock stays forever. Set the lease in the same command: SET key token NX PX ttl.`,
  },
  {
    code: 'LOCK003',
    on: 'del',
    fixable: true,
    check: (op, facts) =>
      !op.watched && !lock004(op, facts) && facts.paired(op, 'acquire').some((a) => facts.isLockAcquire(a))
        ? { key: key(op) }
        : undefined,
    message: ({ key }) =>
      `DEL ${key} releases the lock without checking who holds it: if this holder's lease expired, it deletes the next holder's lock. Release with compare-and-delete (the pack's release script).`,
  },
  {
    code: 'LOCK004',
    on: 'del',
    fixable: true,
    check: (op, facts) => (lock004(op, facts) ? { key: key(op) } : undefined),
    message: ({ key }) =>
      `GET, compare, then DEL of ${key} is not atomic: the lease can expire between the GET and the DEL, and the DEL then removes the next holder's lock. Compare and delete in one Lua script (the pack's release).`,
  },
  {
    code: 'LOCK005',
    on: 'getset',
    fixable: true,
    check: (op, facts) =>
      facts.paired(op, 'acquire').some((a) => facts.isLockAcquire(a)) ||
      (facts.timestampValue(op) && (facts.lockish(op) || facts.timestampLock(op)))
        ? { key: key(op) }
        : undefined,
    message: ({ key }) =>
      `GETSET takeover of ${key}: timestamp locks depend on synchronised clocks, and a client that loses the takeover race still overwrites the winner's expiry. Let Redis expire the lock: SET key token NX PX ttl.`,
  },
  {
    code: 'LOCK005',
    on: 'acquire',
    fixable: true,
    // The timestamp algorithm without GETSET (SETNX, GET, compare with the clock, DEL): reported on the SETNX.
    check: (op, facts) =>
      !op.hasExpiry && facts.isLockAcquire(op) && facts.timestampLock(op) && !facts.paired(op, 'getset').length
        ? { key: key(op), value: short(op.value!.text) }
        : undefined,
    message: ({ key, value }) =>
      `Lock ${key} holds a timestamp (${value}) instead of expiring: its release depends on every client's clock, and two clients that find it stale both delete it and both take it. Let Redis expire the lock: SET key token NX PX ttl.`,
  },
  {
    code: 'LOCK006',
    on: 'acquire',
    fixable: true,
    check: (op, facts) => {
      const constant = facts.isLockAcquire(op) ? facts.constantValue(op) : undefined;
      return constant ? { key: key(op), value: short(op.value!.text), constant } : undefined;
    },
    message: ({ key, value, constant }) =>
      constant === 'process'
        ? `Lock ${key} holds ${value}, made once per process: every acquisition in this process writes the same value, so a release or extend cannot tell this holder from another thread or a later run. Make a new token per acquisition.`
        : `Lock ${key} holds the constant ${value}: the value does not say who owns the lock, so no release can check it is still yours. Store a unique token per holder (host:pid:random).`,
  },
  {
    code: 'LOCK009',
    on: 'expire',
    fixable: false,
    check: (op, facts) => lock009(op, facts),
    message: renewalMessage,
  },
  {
    code: 'LOCK009',
    on: 'extend',
    fixable: false,
    check: (op, facts) => lock009(op, facts),
    message: renewalMessage,
  },
  {
    code: 'LOCK010',
    on: 'get',
    fixable: false,
    // A loop that polls GET until it may take the lock over (or until the key is gone).
    check: (op, facts) => {
      const lock = facts.lockish(op) || facts.paired(op, 'acquire').length > 0 || facts.paired(op, 'getset').length > 0;
      const sleep = lock && !facts.notALock(op) ? facts.polling(op) : undefined;
      return sleep ? { key: key(op), sleep } : undefined;
    },
    message: ({ key, sleep }) =>
      `The loop that polls ${key} with GET ${sleep} between reads: every waiting client hammers Redis with commands while the lock is held. Sleep at least 50 ms with jitter between tries, or wait for the release (a blocking lock that is woken when the holder releases).`,
  },
  {
    code: 'LOCK010',
    on: 'acquire',
    // Only a fix that replaces the retry loop stops the polling.
    fixable: (plan) => !!plan.replacesRetryLoop,
    check: (op, facts) => {
      const sleep = facts.isLockAcquire(op) ? facts.polling(op) : undefined;
      return sleep ? { key: key(op), sleep } : undefined;
    },
    message: ({ key, sleep }) =>
      `The retry loop around the acquire of ${key} ${sleep} between tries: every waiting client hammers Redis with commands while the lock is held. Sleep at least 50 ms with jitter between tries, or wait for the release (a blocking lock that is woken when the holder releases).`,
  },
];

function lock004(op: OpFact, facts: DocumentFacts): boolean {
  if (op.watched || op.guard === undefined) return false;
  return facts.paired(op, 'acquire').length > 0 || facts.lockish(op) || OWNER_NAME.test(op.guard);
}

function lock009(op: OpFact, facts: DocumentFacts): Record<string, string> | undefined {
  if (!op.replyIgnored || !op.renewal) return undefined;
  if (op.kind === 'expire') {
    if (!facts.lockish(op) || facts.notALock(op)) return undefined;
    // Right after the acquire in the same function, an EXPIRE is the lease itself (LOCK001), not a renewal.
    if (
      facts.ops.some(
        (other) =>
          other.kind === 'acquire' && other.fn === op.fn && other.keyShapes.some((s) => op.keyShapes.includes(s)),
      )
    )
      return undefined;
  }
  return { key: op.keyText ? key(op) : 'the lock' };
}

function renewalMessage({ key }: Record<string, string>): string {
  return `The renewal of ${key} ignores its reply: when the lease already expired (or another holder took the lock), the renewal fails and this holder keeps working as if it still held the lock. Check the reply and stop the work when it says the lock is gone.`;
}

/** Every finding of the rules over a document's facts, in document order. */
export function checkFacts(facts: DocumentFacts): Finding[] {
  const findings: Finding[] = [];
  for (const op of facts.ops) {
    const seen = new Set<RuleCode>();
    for (const rule of RULES) {
      if (rule.on !== op.kind || seen.has(rule.code)) continue;
      const details = rule.check(op, facts);
      if (!details) continue;
      seen.add(rule.code);
      findings.push({
        code: rule.code,
        message: rule.message(details),
        start: op.start,
        end: op.end,
        ...(op.fix && (rule.fixable === true || (rule.fixable && rule.fixable(op.fix))) && { fix: op.fix }),
      });
    }
  }
  return findings;
}
