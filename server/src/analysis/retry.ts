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
}

const SLEEP_CALL =
  /\b(time\.sleep|asyncio\.sleep|gevent\.sleep|Thread\.sleep|Thread\.Sleep|Task\.Delay|time\.Sleep|time\.After|usleep|time_nanosleep|setTimeout|TimeUnit\.(\w+)\.sleep|parkNanos|sleep|delay|Sleep|Delay|wait)\s*\(?\s*/g;
const SPIN = /onSpinWait|SpinWait|Task\.Yield|Thread\.yield|runtime\.Gosched/;
const SPIN_STATEMENT = new RegExp(`^(?:[\\w$]+\\.)*(?:${SPIN.source})`);

/** Sleep durations found in `text`, in ms; NaN where the duration is not a literal. */
function sleeps(syntax: Syntax, text: string): number[] {
  const found: number[] = [];
  if (SPIN.test(text)) found.push(0);
  for (const match of text.matchAll(SLEEP_CALL)) {
    const rest = text.slice(match.index + match[0].length, match.index + match[0].length + 80);
    const call = match[1];
    const unit = match[2];
    let argument = /^([^,()\n;]*(?:\([^()]*\))?[^,()\n;]*)/.exec(rest)?.[1]?.trim() ?? '';
    if (call === 'setTimeout') argument = (/,\s*([^,()]+)\)/.exec(rest)?.[1] ?? '').trim();
    const literal = Number(argument.replace(/_/g, '').replace(/[lLfFdDmM]$/, ''));
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
    found.push(ms);
  }
  return found;
}

/** Whether a loop retries (a condition, a counter, forever) rather than walking a collection the key comes from. */
function isRetryLoop(loop: Node, key: Node | undefined): boolean {
  const header = loop.text.slice(
    0,
    Math.max(0, (loop.childForFieldName('body')?.startIndex ?? loop.endIndex) - loop.startIndex),
  );
  const forEach =
    /\bfor\s*\(?\s*(?:const|let|var|final)?\s*[\w$, ]*?\b(\w+)\s+(?:in|of|:)\s/.exec(header) ??
    /foreach\s*\(.*\bas\s+\$?(\w+)/.exec(header) ??
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
    const isLoop =
      syntax.loops.has(loop.type) ||
      (syntax.grammar === 'ruby' &&
        /^(do_block|block)$/.test(loop.type) &&
        /\b(loop|times|until|while)\b/.test(path[i - 1]?.text.slice(0, 40) ?? ''));
    if (isLoop) return isRetryLoop(loop, key) ? loop : undefined;
  }
  return undefined;
}

/** The retry loop around an acquire that sleeps under 10 ms or not at all (LOCK010), if any. */
export function retryOf(syntax: Syntax, loop: Node | undefined): RetryFact | undefined {
  if (!loop) return undefined;
  const found = sleeps(syntax, loop.text);
  if (!found.length) return {};
  if (found.some((ms) => Number.isNaN(ms) || ms >= 10)) return undefined;
  return { sleepMs: Math.min(...found) };
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
