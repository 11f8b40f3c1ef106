// Busy loops that poll a try-acquire method of their class (`sleep 0.001 while !try_to_get_lock`,
// `for !l.tryLock(ctx) {}`): read per unit, matched by the rules to the acquire in that method (LOCK010).
import type { Node } from '@vscode/tree-sitter-wasm';
import { isLoop, isRetryLoop, retryOf, type RetryFact } from './retry';
import type { Syntax } from './syntax';
import { classOf, pathTo } from './tree';
import type { UnitContext } from './units';

/** A busy retry loop that calls a method of its class named like a try-acquire (`while !try_to_get_lock`, `for !l.tryLock()`). */
export interface Poller {
  /** The method the loop calls, by name: an acquire in it is polled. */
  callee: string;
  cls?: string;
  retry: RetryFact;
}

/** Text of a unit that may poll its class's own try-acquire method in a loop. */
export const POLLS_OWN_METHOD = /\b(?:while|until|for|loop)\b/;
/** Methods named like a try-acquire: `tryLock`, `try_to_get_lock`, `acquire_once`, `obtainLock`. */
export const POLLER_CALL = /(?:lock|acquire|obtain|grab|claim)\w*\s*(?:\(|$)/im;

/** Busy retry loops of a unit that call a method named like a try-acquire: the rules match them to the method's acquire. */
export function readPollers(unit: Node, syntax: Syntax, context: UnitContext): Poller[] {
  const pollers: Poller[] = [];
  const types = [...syntax.loops, ...(syntax.grammar === 'ruby' ? ['do_block', 'block'] : [])];
  for (const loop of unit.descendantsOfType(types)) {
    if (!loop) continue;
    const path = pathTo(unit, loop);
    if (!isLoop(syntax, loop, path.at(-2)) || !isRetryLoop(loop, undefined)) continue;
    const retry = retryOf(syntax, loop);
    if (!retry) continue;
    let fnIndex = -1;
    for (let i = path.length - 2; i >= 0 && fnIndex < 0; i--) if (syntax.functions.has(path[i].type)) fnIndex = i;
    const cls = classOf(syntax, path, fnIndex) ?? context.className;
    // The class's own methods: called bare, on self/this, or on a short receiver (Go's `l.tryLock()`).
    const calls = loop.text.matchAll(
      /(?<![\w$.>])(?:(?:self|this|\$this|[a-z]\w{0,2})\s*(?:\.|->)\s*)?([A-Za-z_]\w*)\s*(?=\(|\s*$|\s*[)\n;]|\s+(?:do|then)\b)/gm,
    );
    for (const [, callee] of calls)
      if (POLLER_CALL.test(callee) && !pollers.some((p) => p.callee === callee && p.cls === cls))
        pollers.push({ callee, cls, retry });
  }
  return pollers;
}
