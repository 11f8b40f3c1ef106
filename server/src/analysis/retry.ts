// LOCK010's question: is an acquire inside a retry loop (not a walk over the keys it locks), and
// how long does the loop sleep between tries? Sleep calls are read from the loop's text, with the
// unit each language's sleep takes.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { Syntax } from './syntax';
import { identifierPattern } from './tree';
import { durationMs } from './values';

export interface RetryFact {
  /** The shortest sleep in the loop in ms; undefined when the loop does not sleep at all. */
  sleepMs?: number;
  /**
   * The loop sleeps for a field or option (`time.Sleep(l.retryDelay)`): busy when nothing in the
   * file sets it (Go's zero Duration, Java's 0, an undefined delay), which only the whole file tells.
   */
  sleepField?: string;
}

/** A loop counter, counted from its first pass when a sleep grows with it (`usleep(100 * ($i + 1))`). */
const COUNTER = /^\$?(?:i|j|k|n|attempts?|tries|try|retries|retry|count|counter|round)$/;

/**
 * The value of a sleep's argument written as arithmetic on literals (`0.05 * 1000`, `100 * ($i + 1)`,
 * a loop counter taken at 1); NaN for anything else.
 */
export function arithmetic(expression: string): number {
  const tokens =
    expression.replace(/(\d)_(?=\d)/g, '$1').match(/\$?[A-Za-z_]\w*|\d+(?:\.\d+)?|\.\d+|[-+*/()]|\S/g) ?? [];
  let at = 0;
  const primary = (): number => {
    const token = tokens[at++];
    if (token === '(') {
      const value = sum();
      return tokens[at++] === ')' ? value : Number.NaN;
    }
    if (token === '-') return -primary();
    if (token !== undefined && /^[\d.]/.test(token)) return Number(token);
    return token !== undefined && COUNTER.test(token) ? 1 : Number.NaN;
  };
  const product = (): number => {
    let value = primary();
    while (tokens[at] === '*' || tokens[at] === '/')
      value = tokens[at++] === '*' ? value * primary() : value / primary();
    return value;
  };
  const sum = (): number => {
    let value = product();
    while (tokens[at] === '+' || tokens[at] === '-')
      value = tokens[at++] === '+' ? value + product() : value - product();
    return value;
  };
  const value = sum();
  return at === tokens.length ? value : Number.NaN;
}

/** A name that may be a field holding a delay: `l.retryDelay`, `this.retryDelay`, `$this->retryDelay`, `_retryDelay`, `retryDelayMs`. */
const FIELD = /^(?:(?:this|self|\$this|[a-z]\w{0,3}|opts?|options|cfg|config|settings)(?:\.|->))?\$?([A-Za-z_]\w*)$/;

/**
 * Whether a field the file declares (a Go struct field, a Java/C#/TypeScript/PHP field) is never
 * given a value in it: no initializer, no assignment, no `name:` in a literal or options, no
 * annotation that injects it. Then it holds its type's zero, and a sleep for it does not sleep.
 */
export function unsetField(text: string, name: string): boolean {
  const escaped = name.replace(/\$/g, '\\$');
  const declared = new RegExp(
    `^\\s*(?:${escaped}\\s+[*\\w.[\\]]+\\s*$|(?:(?:private|protected|public|internal|readonly|static|final|var)\\s+)+(?:[\\w.<>[\\]?]+\\s+)?\\$?${escaped}\\s*(?:[?!]?\\s*:\\s*[\\w.<>[\\]|]+\\s*)?;)`,
    'm',
  );
  const match = declared.exec(text);
  if (!match) return false;
  // `@Value("${lock.retry-delay}") private long retryDelay;`: a framework sets it.
  const before = text.slice(Math.max(0, match.index - 200), match.index);
  if (/@\w+(?:\([^)]*\))?\s*$/.test(before)) return false;
  const elsewhere = text.slice(0, match.index) + text.slice(match.index + match[0].length);
  return !new RegExp(`(?<![\\w$])\\$?${escaped}\\s*(?:=(?!=)|:=|:(?![:=]))`).test(elsewhere);
}

const SLEEP_CALL =
  /\b(time\.sleep|asyncio\.sleep|gevent\.sleep|Thread\.sleep|Thread\.Sleep|Task\.Delay|time\.Sleep|time\.After|usleep|time_nanosleep|setTimeout|TimeUnit\.(\w+)\.sleep|parkNanos|sleep|delay|Sleep|Delay|wait)\s*\(?\s*/g;
const SPIN = /onSpinWait|SpinWait|Task\.Yield|Thread\.yield|runtime\.Gosched/;
const SPIN_STATEMENT = new RegExp(`^(?:[\\w$]+\\.)*(?:${SPIN.source})`);

/** A sleep: its duration in ms (NaN where it is not arithmetic on literals) and the field it reads, if it reads one. */
interface Sleep {
  ms: number;
  field?: string;
}

/** Sleeps found in `text`. */
function sleeps(syntax: Syntax, text: string): Sleep[] {
  const found: Sleep[] = [];
  if (SPIN.test(text)) found.push({ ms: 0 });
  for (const match of text.matchAll(SLEEP_CALL)) {
    const rest = text.slice(match.index + match[0].length, match.index + match[0].length + 80);
    const call = match[1];
    const unit = match[2];
    // `sleep 0.001 while !taken`: a Ruby modifier ends the argument.
    let argument = (/^([^,()\n;]*(?:\([^()]*\))?[^,()\n;]*)/.exec(rest)?.[1] ?? '')
      .split(/\s(?:while|until|if|unless)\s/)[0]
      .trim();
    if (call === 'setTimeout') argument = (/,\s*([^,()]+)\)/.exec(rest)?.[1] ?? '').trim();
    const literal = arithmetic(argument.replace(/(\d)[lLfFdDmM]\b/g, '$1'));
    let ms = Number.NaN;
    if (syntax.grammar === 'go' || /^TimeSpan\./.test(argument)) {
      ms = durationMs(argument);
    } else if (!Number.isNaN(literal) && argument !== '') {
      if (call === 'usleep') ms = literal / 1000;
      else if (call === 'parkNanos') ms = literal / 1e6;
      else if (unit)
        ms = literal * ({ MILLISECONDS: 1, SECONDS: 1000, MICROSECONDS: 1e-3, NANOSECONDS: 1e-6 }[unit] ?? Number.NaN);
      else if (/Thread\.sleep|Thread\.Sleep|Task\.Delay|setTimeout|delay|Delay/.test(call)) ms = literal;
      else if (/^(sleep|wait)$/.test(call) && /javascript|typescript|tsx/.test(syntax.grammar)) ms = literal;
      else ms = literal * 1000;
    }
    const fieldMatch = Number.isNaN(ms) ? FIELD.exec(argument) : null;
    const field = fieldMatch?.[1];
    // A field the rules can look up (unsetField); not a constant, nor a loop counter.
    found.push({ ms, field: field && !/^[A-Z_\d]+$/.test(field) && !COUNTER.test(field) ? field : undefined });
  }
  return found;
}

/** Whether a loop retries (a condition, a counter, forever) rather than walking a collection the key comes from. */
export function isRetryLoop(loop: Node, key: Node | undefined): boolean {
  const header = loop.text.slice(
    0,
    Math.max(0, (loop.childForFieldName('body')?.startIndex ?? loop.endIndex) - loop.startIndex),
  );
  const forEach =
    /\bfor\s*\(?\s*(?:const|let|var|final)?\s*[\w$, ]*?\b(\w+)\s+(?:in|of|:)\s/.exec(header) ??
    /foreach\s*\(.*\bas\s+(?:\$\w+\s*=>\s*)?(\$?\w+)/.exec(header) ??
    /\bfor\s+[\w, ]*?(\w+)\s*:?=\s*range\b/.exec(header);
  if (forEach && key && identifierPattern(forEach[1]).test(key.text)) return false;
  // `for (var shard = 0; shard < n; shard++)`, `for i := 0; ...`: a counter the key is built from walks the keys.
  const counter = /\bfor\s*\(?\s*(?:var|let|const|int|long|auto)?\s*(\w+)\s*:?=/.exec(header);
  if (counter && key && identifierPattern(counter[1]).test(key.text)) return false;
  if (/\bin\s+(?:self\.|this\.)?\w*(?:keys|locks|names|items|resources|ids)\b/i.test(header)) return false;
  return true;
}

/** The innermost loop between the function and the acquire, when it retries the acquire (not a walk over keys). */
export function retryLoopOf(syntax: Syntax, path: Node[], fnIndex: number, key: Node | undefined): Node | undefined {
  for (let i = path.length - 2; i > fnIndex; i--) {
    const loop = path[i];
    if (isLoop(syntax, loop, path[i - 1])) return isRetryLoop(loop, key) ? loop : undefined;
  }
  return undefined;
}

/** A loop statement, or Ruby's `loop do`, `n.times do`: a block whose call (`caller`) repeats it. */
export function isLoop(syntax: Syntax, node: Node, caller: Node | undefined): boolean {
  return (
    syntax.loops.has(node.type) ||
    (syntax.grammar === 'ruby' &&
      /^(do_block|block)$/.test(node.type) &&
      /\b(loop|times|until|while)\b/.test(caller?.text.slice(0, 40) ?? ''))
  );
}

/** The retry loop around an acquire that sleeps under 10 ms or not at all (LOCK010), if any. */
export function retryOf(syntax: Syntax, loop: Node | undefined): RetryFact | undefined {
  if (!loop) return undefined;
  const found = sleeps(syntax, loop.text);
  if (!found.length) return {};
  // A sleep of 10 ms or more, or of a length nobody can read here (a call, a constant), is a real pause.
  if (found.some(({ ms, field }) => ms >= 10 || (Number.isNaN(ms) && !field))) return undefined;
  const known = found.filter(({ ms }) => !Number.isNaN(ms)).map(({ ms }) => ms);
  const field = found.find((sleep) => sleep.field)?.field;
  return { ...(known.length && { sleepMs: Math.min(...known) }), ...(field && { sleepField: field }) };
}

/** A statement that only waits: a sleep or a spin hint (`time.sleep(0.01)`, `await sleep(2)`, `Thread.onSpinWait();`). */
export function isPause(statement: string): boolean {
  const text = statement
    .trim()
    .replace(/^await\s+/, '')
    .replace(/;$/, '');
  if (/^new Promise\(.*\bsetTimeout\b/s.test(text)) return true;
  SLEEP_CALL.lastIndex = 0;
  const call = SLEEP_CALL.exec(text);
  return (call?.index === 0 || SPIN_STATEMENT.test(text)) && !/\n/.test(text);
}
