// What the "Replace with Locksmith's vetted lock" fix replaces and keeps: the statements from the
// acquire to the release, the user's key expression and lease, and the code they guarded (the
// body), with the lock calls and the checks of their results taken out.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RedisOp } from './ops';
import type { Syntax } from './syntax';
import { mentions, within } from './tree';

export interface FixPlan {
  /** UTF-16 offsets of the replaced statements. */
  start: number;
  end: number;
  /** The key expression as the user wrote it. */
  key: string;
  ttlMs?: string;
  /** The guarded statements, dedented; absent when there were none. */
  body?: string;
  /** Leading whitespace of the first replaced line. */
  indent: string;
  /** The client expression the user called (`redis`, `$this->redis`). */
  receiver?: string;
}

/** Statements that leave the block: return, raise, throw, continue, break. */
const EXITS = /^(return|raise|throw|continue|break)(_statement|_expression)?$/;

/** A conditional that runs its branch when the acquire failed: `if not ...`, `if (!...)`, `unless`, `== 0`, `is None`. */
const FAILURE_TEST = /^\(?\s*(not\b|!)|[=!]==?\s*(0|false|False|nil|None|null)\b|\bis\s+None\b/;

function testsFailure(statement: Node): boolean {
  if (/unless/.test(statement.type)) return true;
  const condition = statement.childForFieldName('condition');
  return !!condition && FAILURE_TEST.test(condition.text.trim());
}

/** Clauses whose code does not run while holding the lock: else, catch, rescue. */
const NOT_GUARDED = /else|catch|except|rescue|alternative/;

/** Removes a statement's own indentation from its continuation lines. */
function dedent(node: Node): string {
  const column = node.startPosition.column;
  return node.text
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.replace(new RegExp(`^[ \\t]{0,${column}}`), '')))
    .join('\n');
}

/** Blocks directly inside `node` (not inside a nested block), skipping else/catch clauses. */
function innerBlocks(syntax: Syntax, node: Node): Node[] {
  const out: Node[] = [];
  const visit = (current: Node) => {
    for (const child of current.namedChildren) {
      if (!child || NOT_GUARDED.test(child.type)) continue;
      if (syntax.blocks.has(child.type)) out.push(child);
      else visit(child);
    }
  };
  visit(node);
  return out;
}

export function planFix(
  syntax: Syntax,
  ops: RedisOp[],
  acquire: RedisOp | undefined,
  boundName: string | undefined,
  text: string,
): FixPlan | undefined {
  const calls = ops.map((op) => op.call.node);
  // Without the acquire here (lock() and unlock() split across a class) the guard does not fit.
  if (!calls.length || !acquire?.key) return undefined;
  // The deepest block holding every lock call.
  let block: Node | null = calls[0].parent;
  while (block && !(syntax.blocks.has(block.type) && calls.every((call) => within(call, block!)))) {
    // No block inside the function (an expression-bodied member): nothing to put the guard in.
    if (syntax.functions.has(block.type)) return undefined;
    block = block.parent;
  }
  if (!block) return undefined;
  const statements = block.namedChildren.filter((child): child is Node => !!child && !child.type.includes('comment'));
  const holding = statements.filter((statement) => calls.some((call) => within(call, statement)));
  const first = holding[0];
  // Without a release, the lock was held for the rest of the block: that is the body.
  const hasRelease = ops.some((op) => op.kind === 'del' || op.kind === 'getset');
  const last = hasRelease ? holding[holding.length - 1] : statements[statements.length - 1];
  const mentionsBound = (node: Node) => mentions(node, boundName);

  const body: string[] = [];
  const collect = (statement: Node) => {
    const hasLockCall = calls.some((call) => within(call, statement));
    if (!hasLockCall && !mentionsBound(statement)) {
      body.push(dedent(statement));
      return;
    }
    for (const inner of innerBlocks(syntax, statement)) {
      const children = inner.namedChildren.filter((child): child is Node => !!child && !child.type.includes('comment'));
      // `if not r.setnx(...): return`: the branch taken when the lock was not acquired guards nothing.
      if (children.length && children.every((child) => EXITS.test(child.type)) && testsFailure(statement)) continue;
      for (const child of children) collect(child);
    }
  };
  for (const statement of statements.slice(statements.indexOf(first), statements.indexOf(last) + 1)) collect(statement);

  // A function that hands the lock to its caller (`return redis.setnx(...)`, `return token`) is not a guarded section.
  const handsOver =
    /^return/.test(first.type) ||
    body.some((statement) => /^return\b/.test(statement) && !!acquire.value && statement.includes(acquire.value.text));
  if (!hasRelease && handsOver) return undefined;

  const lineStart = text.lastIndexOf('\n', first.startIndex - 1) + 1;
  const ttlMs = acquire?.ttlMs ?? ops.find((op) => op.kind === 'expire' && op.ttlMs !== undefined)?.ttlMs;
  return {
    start: first.startIndex,
    end: last.endIndex,
    key: acquire.key.text,
    ttlMs,
    body: body.length ? body.join('\n') : undefined,
    indent: /^[ \t]*/.exec(text.slice(lineStart, first.startIndex))![0],
    receiver: acquire.call.receiver?.text,
  };
}
