// A document parsed again for planning fixes: the analysis keeps plain facts per unit (no tree),
// but a minimal fix edits the calls, tests and statements around a finding, which only the tree
// shows. Parsed when a fix is asked for (a code action, `lint --fix`, the CLI's report of what
// is fixable): a few milliseconds for a file with findings.
import type { Node, Tree } from '@vscode/tree-sitter-wasm';
import { mentionsRedis } from '../analysis';
import { MENTIONS_REDIS, findOps, type RedisOp } from '../analysis/ops';
import { parserFor } from '../analysis/parsers';
import { syntaxFor, unwrap, type Syntax } from '../analysis/syntax';
import { identifierPattern, within } from '../analysis/tree';
import type { TextChange } from '../lockFix';

/** Wrappers a value passes through unchanged: `await x`, `(x)`. */
const TRANSPARENT = new Set(['await_expression', 'parenthesized_expression', 'await']);

/** A GLIDE for Java import: its commands reply futures. */
const GLIDE_JAVA = /^\s*import\s+(?:static\s+)?glide\.api\./m;

export class FixDocument {
  private ops: RedisOp[] | undefined;
  private glideJava: boolean | undefined;

  private constructor(
    readonly languageId: string,
    readonly syntax: Syntax,
    readonly text: string,
    private readonly tree: Tree,
  ) {}

  /** The parsed document, or undefined for a language without host-language fixes (Lua). */
  static async parse(languageId: string, text: string): Promise<FixDocument | undefined> {
    const syntax = syntaxFor(languageId);
    if (!syntax || !mentionsRedis(languageId, text)) return undefined;
    const tree = (await parserFor(syntax.grammar)).parse(text);
    return tree ? new FixDocument(languageId, syntax, text, tree) : undefined;
  }

  get root(): Node {
    return this.tree.rootNode;
  }

  get grammar(): Syntax['grammar'] {
    return this.syntax.grammar;
  }

  dispose(): void {
    this.tree.delete();
  }

  /** Every Redis operation of the document, in source order. */
  allOps(): RedisOp[] {
    this.ops ??= findOps(this.syntax, this.root, this.text, MENTIONS_REDIS.test(this.text));
    return this.ops;
  }

  /** The operation a finding is reported on: its method name starts at `start`. */
  opAt(start: number): RedisOp | undefined {
    return this.allOps().find((op) => op.call.nameNode.startIndex === start);
  }

  /** Operations inside `scope`. */
  opsIn(scope: Node): RedisOp[] {
    return this.allOps().filter((op) => within(op.call.node, scope));
  }

  /** The innermost function holding `node`. */
  functionOf(node: Node): Node | undefined {
    for (let current = node.parent; current; current = current.parent)
      if (this.syntax.functions.has(current.type)) return current;
    return undefined;
  }

  /** The innermost class holding `node` (a Go method's receiver type is not one: see `goReceiver`). */
  classOf(node: Node): Node | undefined {
    for (let current = node.parent; current; current = current.parent)
      if (this.syntax.classes.has(current.type)) return current;
    return undefined;
  }

  /** The statement holding `node`: its ancestor (or itself) whose parent is a block. */
  statementOf(node: Node): Node | undefined {
    for (let current: Node | null = node; current?.parent; current = current.parent)
      if (this.syntax.blocks.has(current.parent.type)) return current;
    return undefined;
  }

  /** `node` seen through `await` and parentheses: the expression whose value is the call's reply. */
  valueOf(node: Node): Node {
    let current = node;
    for (;;) {
      while (current.parent && TRANSPARENT.has(current.parent.type)) current = current.parent;
      const settled = this.settled(current);
      if (!settled) return current;
      current = settled;
    }
  }

  /** GLIDE for Java replies a CompletableFuture: `client.del(keys).get()` is the DEL's value. */
  private settled(node: Node): Node | undefined {
    const parent = node.parent;
    if (this.languageId !== 'java' || parent?.type !== 'method_invocation') return undefined;
    if (parent.childForFieldName('object')?.id !== node.id) return undefined;
    if (!/^(?:get|join)$/.test(parent.childForFieldName('name')?.text ?? '')) return undefined;
    this.glideJava ??= GLIDE_JAVA.test(this.text);
    return this.glideJava ? parent : undefined;
  }

  /** Statements of a block, comments left out (Go's block holds a statement_list). */
  statementsOf(block: Node): Node[] {
    return block.namedChildren.flatMap((child) =>
      !child || child.type.includes('comment')
        ? []
        : child.type === 'statement_list'
          ? this.statementsOf(child)
          : [child],
    );
  }

  /** Offset of the start of the line holding `offset`. */
  lineStart(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  /** Offset just after the line break ending the line holding `offset` (the text's end on the last line). */
  lineEnd(offset: number): number {
    const at = this.text.indexOf('\n', offset);
    return at < 0 ? this.text.length : at + 1;
  }

  /** The leading whitespace of the line holding `offset`. */
  indentAt(offset: number): string {
    const start = this.lineStart(offset);
    return /^[ \t]*/.exec(this.text.slice(start))![0];
  }

  /** One step of indentation as the file writes it (the smallest step between lines). */
  indentUnit(): string {
    if (/^\t/m.test(this.text)) return '\t';
    const widths = [...this.text.matchAll(/^( +)\S/gm)].map((match) => match[1].length);
    const step = widths.filter((width) => width > 0).reduce((min, width) => Math.min(min, width), Infinity);
    return ' '.repeat(Number.isFinite(step) ? step : 4);
  }

  /**
   * The edit that deletes statement `node` with its whole lines, the comment lines right above it
   * (they described it) and a comment after it on its last line; undefined when it shares a line
   * with other code.
   */
  deleteStatement(node: Node): TextChange | undefined {
    const start = this.lineStart(node.startIndex);
    const end = this.lineEnd(node.endIndex);
    if (this.text.slice(start, node.startIndex).trim()) return undefined;
    const after = this.text.slice(node.endIndex, end).trim();
    if (after && !/^;?\s*(\/\/|#)/.test(after)) return undefined;
    return { start: this.attachedCommentsStart(start), end, text: '' };
  }

  /** The start of the comment lines directly above the line starting at `lineStart` (or `lineStart`). */
  attachedCommentsStart(lineStart: number): number {
    let start = lineStart;
    while (start > 0) {
      const previous = this.lineStart(start - 1);
      const line = this.text.slice(previous, start).trim();
      if (!/^(\/\/|#(?!!)|\/\*.*\*\/$|\*)/.test(line)) break;
      start = previous;
    }
    return start;
  }

  /** Whether `name` occurs as an identifier in `node` outside the ranges `except`. */
  mentionsOutside(node: Node, name: string, except: readonly Node[]): boolean {
    let text = this.text.slice(node.startIndex, node.endIndex);
    for (const skip of [...except].sort((a, b) => b.startIndex - a.startIndex))
      if (within(skip, node))
        text =
          text.slice(0, skip.startIndex - node.startIndex) +
          ' '.repeat(skip.endIndex - skip.startIndex) +
          text.slice(skip.endIndex - node.startIndex);
    return identifierPattern(name).test(text);
  }

  /** Identifier nodes named `name` inside `scope`, in order. */
  identifiers(scope: Node, name: string): Node[] {
    return scope
      .descendantsOfType(['identifier', 'variable_name', 'instance_variable', 'field_identifier'])
      .filter((node): node is Node => !!node && node.text === name);
  }
}

/** `node` unwrapped of `await` and parentheses (re-exported for planners). */
export const inner = unwrap;

/** `text` of `node` with the ranges of `changes` (inside it, not overlapping) replaced. */
export function rewrite(document: FixDocument, node: Node, changes: readonly TextChange[]): string {
  let out = document.text.slice(node.startIndex, node.endIndex);
  for (const change of [...changes].sort((a, b) => b.start - a.start))
    out = out.slice(0, change.start - node.startIndex) + change.text + out.slice(change.end - node.startIndex);
  return out;
}
