// What a value expression is, as far as locks care: a clock reading, a generated token, a
// literal, or a conversion of another value (`String(x)`, `x.toString()`).
import type { Node } from '@vscode/tree-sitter-wasm';
import { lastName } from './keys';
import { unwrap } from './syntax';

export const CLOCK_CALL =
  /currentTimeMillis|nanoTime|\btime\.time\b|\btime\(\)|Date\.now|new Date\b|getTime\(\)|\btime\.Now\b|Time\.now|DateTime\.(?:Utc)?Now|DateTimeOffset\.(?:Utc)?Now|microtime|\bInstant\.now|LocalDateTime\.now|\bos\.time|\bnow\(\)\.timestamp|datetime\.(?:utc)?now|\.Unix(?:Milli|Nano)?\(\)|\bUnixNano\b|Carbon::now|\bDate\.now|ToUnixTime(?:Milliseconds|Seconds)|Process\.clock_gettime/;
/** Names that hold an expiry time when nothing else says what they hold. */
export const CLOCK_NAME =
  /^(?:expires?|expires?_?at|expir(?:y|ation)(?:_?time)?|deadline|valid_?until|lock_?until|timestamp|expire_?time|lock_?time(?:out_?at)?)$/i;
/** A clock reading moved forward: an expiry time (`System.currentTimeMillis() + ttl`, `time.Now().Add(ttl)`). */
const OFFSET = /\+|\bplus\w*\s*\(|\.Add\w*\s*\(|\.add\s*\(|timedelta/;
/** Names of an expiry time: `expires_at`, `deadline`, `lockUntil`, `expireTime()`. */
export const DEADLINE_NAME = /expir|deadline|until|timeout_?at|valid/i;

/** Whether a value is an expiry time (the timestamp algorithm), not only the moment the lock was taken. */
export function isDeadline(text: string): boolean {
  return CLOCK_CALL.test(text) && OFFSET.test(text);
}

export const GENERATED =
  /uuid|guid|random|rand\(|\brand\b|nanoid|token_hex|token_urlsafe|urandom|ObjectId|SecureRandom|uniqid|ulid/i;
export const NULLISH = /^(null|nil|none|undefined)$/i;

const UNITS: Record<string, number> = {
  Nanosecond: 1e-6,
  Microsecond: 1e-3,
  Millisecond: 1,
  Milliseconds: 1,
  Second: 1000,
  Seconds: 1000,
  Minute: 60_000,
  Minutes: 60_000,
};

/** Java's units: `Duration.ofSeconds(30)` and `TimeUnit.SECONDS`. */
const JAVA_UNITS: Record<string, number> = {
  Millis: 1,
  MILLISECONDS: 1,
  Seconds: 1000,
  SECONDS: 1000,
  Minutes: 60_000,
  MINUTES: 60_000,
  Hours: 3_600_000,
  HOURS: 3_600_000,
};

/**
 * A literal duration in ms: Go's `30 * time.Second`, .NET's `TimeSpan.FromSeconds(30)`, Java's
 * `Duration.ofSeconds(30)`; NaN for anything else.
 */
export function durationMs(text: string): number {
  const compact = text.replace(/\s+/g, '');
  const go = /^(?:(\d+(?:\.\d+)?)\*)?time\.(Nanosecond|Microsecond|Millisecond|Second|Minute)$/.exec(compact);
  if (go) return Number(go[1] ?? 1) * UNITS[go[2]];
  const java = /^(?:java\.time\.)?Duration\.of(Millis|Seconds|Minutes|Hours)\((\d[\d_]*)[lL]?\)$/.exec(compact);
  if (java) return Number(java[2].replace(/_/g, '')) * JAVA_UNITS[java[1]];
  const span = /^TimeSpan\.From(Milliseconds|Seconds|Minutes)\(([\d.]+)\)$/.exec(compact);
  return span ? Number(span[2]) * UNITS[span[1]] : Number.NaN;
}

/** Java's `(30, TimeUnit.SECONDS)` in ms when the amount is a literal; NaN for anything else. */
export function timeUnitMs(amount: string, unit: string): number {
  const name = /^(?:TimeUnit\.)?([A-Z]+)$/.exec(unit.trim())?.[1];
  const literal = /^(\d[\d_]*)[lL]?$/.exec(amount.trim());
  return name && JAVA_UNITS[name] && literal ? Number(literal[1].replace(/_/g, '')) * JAVA_UNITS[name] : Number.NaN;
}

/** The value of a declaration or assignment node (C#'s declarator keeps it as its last child, without a field). */
export function declaredValue(node: Node): Node | null {
  const value = node.childForFieldName('value') ?? node.childForFieldName('right');
  if (value) return value;
  return node.type === 'variable_declarator' && node.namedChildCount > 1
    ? node.namedChild(node.namedChildCount - 1)
    : null;
}

const CONVERSION =
  /^(String|str|string|Number|int|float|toString|valueOf|Itoa|FormatInt|Sprint|strval|to_s|to_i|ToString|encode|Convert\.ToString|Long\.toString|String\.valueOf|Integer\.toString|strconv\.Itoa|strconv\.FormatInt|fmt\.Sprint)$/;

/** `String(x)`, `str(x)`, `x.toString()`, `String.valueOf(x)`: the value converted, not a new one. */
export function unconverted(node: Node): Node {
  if (!/call|invocation/.test(node.type)) return node;
  const callee =
    node.childForFieldName('function') ?? node.childForFieldName('name') ?? node.childForFieldName('method');
  const args = (node.childForFieldName('arguments')?.namedChildren ?? []).filter((c): c is Node => !!c);
  const calleeText = callee?.text ?? '';
  const receiver =
    node.childForFieldName('object') ??
    node.childForFieldName('receiver') ??
    callee?.childForFieldName('object') ??
    callee?.childForFieldName('operand') ??
    callee?.childForFieldName('expression');
  // x.toString('hex'), x.to_s, x.encode(): the receiver is the value.
  if (receiver && /^(toString|to_s|ToString|encode)$/.test(lastName(calleeText))) return unwrap(receiver);
  if (args.length === 1 && (CONVERSION.test(calleeText) || CONVERSION.test(lastName(calleeText))))
    return unwrap(args[0]);
  return node;
}
