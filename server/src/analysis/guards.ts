// LOCK004's question: does a DEL run under a test of a GET's result? The names the reply flows
// into (assignments, loops over it, a pipeline's replies, a list it is added to), and the
// conditionals that test them around or before the DEL.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { Assignments } from './assignments';
import { lastName } from './keys';
import type { RedisOp } from './ops';
import { TRANSACTION } from './replies';
import type { Syntax } from './syntax';
import { boundName, identifierPattern, mentions, within } from './tree';

/** An operation with its ancestors and the function it belongs to. */
export interface Placed {
  op: RedisOp;
  path: Node[];
  fn: Node;
  fnIndex: number;
}

export const EXIT = /\b(return|throw|raise|continue|break|next)\b/;

/** The names a GET's result flows into: `old = get(k)`, then `t = Long.parseLong(old)`, and so on. */
function derivedNames(bindings: Bindings, first: string[], after: number): Set<string> {
  const names = new Set(first);
  const later = bindings.filter((binding) => binding.start > after && /^[\w$]+$/.test(binding.name));
  for (let grew = true; grew;) {
    grew = false;
    for (const { name, from } of later) {
      if (names.has(name) || ![...names].some((known) => identifierPattern(known).test(from))) continue;
      names.add(name);
      grew = true;
    }
  }
  return names;
}

/** A name and the text its value comes from: an assignment's value, or the collection a loop walks. */
type Bindings = { name: string; from: string; start: number }[];

/** Loop variables and their collections: `for k, holder in zip(keys, holders)`, `holders.each do |holder|`. */
function loopBindings(syntax: Syntax, fn: Node): Bindings {
  const out: Bindings = [];
  for (const loop of fn.descendantsOfType([...syntax.loops, 'do_block', 'block'])) {
    if (!loop) continue;
    const body = loop.childForFieldName('body');
    const header = loop.text.slice(0, Math.max(0, (body?.startIndex ?? loop.endIndex) - loop.startIndex));
    const parameters = loop.childForFieldName('parameters');
    let bound: string | undefined;
    let collection = header;
    if (parameters && /block/.test(loop.type)) {
      // Ruby: `holders.each do |holder|`: the collection is the call the block belongs to.
      bound = parameters.text;
      collection = loop.parent?.text.slice(0, loop.startIndex - loop.parent.startIndex) ?? '';
    } else {
      const match =
        /\bfor\s*\(?\s*(?:const|let|var|final)?\s*(?:[\w<>[\]]+\s+)?([^;]*?)\s+(?:in|of|:)\s/.exec(header) ??
        /\bforeach\s*\(.*?\bas\s+(.*?)\)/.exec(header) ??
        /\bfor\s+(.*?)\s*:?=\s*range\b/.exec(header) ??
        /\bforeach\s*\(\s*(?:var\s+)?(.*?)\s+in\s/.exec(header);
      bound = match?.[1];
    }
    for (const name of bound?.match(/[$\w]+/g) ?? []) out.push({ name, from: collection, start: loop.startIndex });
  }
  return out;
}

/**
 * Where a GET's reply goes when it is not assigned: the list it is added to (`holders.add(reads.get(key))`),
 * or the variable an expression holding it is assigned to (`holders = redis.pipelined do ... end`).
 */
function collectedInto(syntax: Syntax, path: Node[], assignments: Assignments, get: RedisOp): string | undefined {
  for (let i = path.length - 2; i >= Math.max(0, path.length - 4); i--) {
    const call = syntax.call(path[i]);
    if (call?.receiver && /^(?:add|push|append|Add|put|offer|<<)$/.test(call.nameNode.text))
      return lastName(call.receiver.text);
  }
  const holding = assignments.filter(({ value }) => within(get.call.node, value) && value.id !== get.call.node.id);
  return holding.at(-1)?.name;
}

/** Names bound to a pipeline's replies after `get` was queued on it: `holders = pipe.execute()`. */
function pipelineReplies(get: RedisOp, bindings: Bindings): string[] {
  const pipeline = get.call.receiver?.text;
  if (!pipeline || !/^[$\w.>-]+$/.test(pipeline)) return [];
  // A pipeline by its name, or by what made it (`reads = r.pipeline()`).
  const made = bindings.some(
    (binding) =>
      binding.name === lastName(pipeline) && /pipeline|pipelined|multi|batch|transaction/i.test(binding.from),
  );
  if (!made && !TRANSACTION.test(pipeline)) return [];
  const escaped = pipeline.replace(/[.$]/g, '\\$&');
  const executes = new RegExp(`(?<![\\w$.])${escaped}\\s*(?:\\.|->)\\s*(?:execute|exec|sync\\w*|ExecAsync)\\b`, 'i');
  return bindings
    .filter((binding) => binding.start > get.call.node.endIndex && executes.test(binding.from))
    .map((binding) => binding.name);
}

/** The test of a GET's result (or what was computed from it) that the DEL runs under or right after (LOCK004). */
export function guardingTest(syntax: Syntax, del: Placed, gets: Placed[], assignments: Assignments): Node | undefined {
  const fn = del.fn;
  const bindings: Bindings = [
    // `const [error, holder] = replies[i]`, `v, err := ...`: each name of a pattern is bound to the value.
    ...assignments.flatMap(({ name, value, start }) =>
      (/^[[({]|,/.test(name) ? (name.match(/[$\w]+/g) ?? []) : [name]).map((each) => ({
        name: each,
        from: value.text,
        start,
      })),
    ),
    ...loopBindings(syntax, fn),
  ];
  for (const { op: get, path } of gets) {
    if (get.call.nameNode.startIndex >= del.op.call.nameNode.startIndex) continue;
    const bound = boundName(syntax, path) ?? collectedInto(syntax, path, assignments, get);
    // A GET queued on a pipeline answers in the pipeline's replies.
    const first = bound ? [bound] : pipelineReplies(get, bindings);
    const names = derivedNames(bindings, first, get.call.node.endIndex);
    const usesResult = (condition: Node) =>
      within(get.call.node, condition) || [...names].some((name) => mentions(condition, name));
    for (const conditional of fn.descendantsOfType([...syntax.conditionals])) {
      if (!conditional) continue;
      const condition = conditional.childForFieldName('condition');
      if (!condition || !usesResult(condition)) continue;
      // The DEL runs under the test, or after it in its block or one around it (an early return on a mismatch).
      if (within(del.op.call.node, conditional)) return condition;
      const earlyExit =
        conditional.endIndex <= del.op.call.nameNode.startIndex &&
        conditional.endIndex > get.call.nameNode.startIndex &&
        within(conditional, fn) &&
        inBlockAround(conditional, del.path) &&
        EXIT.test(conditional.text);
      if (earlyExit) return condition;
    }
  }
  return undefined;
}

/** Whether `conditional` is a statement of a block on `path` (the block holding the DEL, or one around it). */
function inBlockAround(conditional: Node, path: Node[]): boolean {
  return path.some((block) => block.namedChildren.some((child) => child?.id === conditional.id));
}
