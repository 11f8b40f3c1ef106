// The SET that replaces a SETNX replies differently (`OK`/nil where SETNX said 1/0): every use
// of the reply must mean what it meant before. A condition on it (`if (await redis.setnx(...))`)
// means the same where the new reply is truthy exactly when the old one was; a comparison
// (`== 1`, `=== 0`, `> 0`, `.equals(1L)`) becomes the library's test of the new reply; a reply
// returned or stored is converted back to the old value at the call. Anything else: no fix.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { TextChange } from '../lockFix';
import type { Dialect } from './dialects';
import { rewrite, type FixDocument } from './document';
import { noFix, type NoFix } from './remedy';

const ONE = /^(?:1[lL]?|true|True|TRUE|Long\.valueOf\(1[lL]?\)|Boolean\.TRUE)$/;
const ZERO = /^(?:0[lL]?|false|False|FALSE|Long\.valueOf\(0[lL]?\)|Boolean\.FALSE)$/;
const EQUAL = new Set(['==', '===', 'eq']);
const UNEQUAL = new Set(['!=', '!==', '<>']);
export const NEGATIONS = new Set([
  'unary_expression',
  'unary_op_expression',
  'prefix_unary_expression',
  'unary',
  'not_operator',
]);
const LOGICAL = new Set(['&&', '||', 'and', 'or']);

export type Use =
  /** The reply is dropped. */
  | { kind: 'ignored' }
  /** `node` (a comparison, `.equals`, or a negation) tests whether the lock was taken, on `operand`. */
  | { kind: 'test'; node: Node; operand: Node; test: 'success' | 'failure' }
  /** `operand` is a condition by itself. */
  | { kind: 'condition'; operand: Node }
  | { kind: 'value' };

const operatorOf = (node: Node): string | undefined =>
  node.childForFieldName('operator')?.text ??
  node.children.find((child) => !!child && !child.isNamed && /^[=!<>]=*=?$|^(?:eq|<>)$/.test(child.type))?.text;

/** The test a comparison of the reply with a literal makes, or undefined. */
function comparisonTest(operator: string, literal: string, replyOnLeft: boolean): 'success' | 'failure' | undefined {
  const one = ONE.test(literal);
  const zero = ZERO.test(literal);
  if (!one && !zero) return undefined;
  const op = replyOnLeft ? operator : ({ '>': '<', '<': '>', '>=': '<=', '<=': '>=' }[operator] ?? operator);
  if (EQUAL.has(op)) return one ? 'success' : 'failure';
  if (UNEQUAL.has(op)) return one ? 'failure' : 'success';
  if (op === '>' && zero) return 'success';
  if (op === '>=' && one) return 'success';
  if (op === '<' && one) return 'failure';
  if (op === '<=' && zero) return 'failure';
  return undefined;
}

/**
 * Ruby: a method answers its last expression, so a call that is the last statement of a method's
 * body is its return value, not a dropped reply.
 */
function returnedImplicitly(document: FixDocument, node: Node): boolean {
  if (document.grammar !== 'ruby') return false;
  const statement = document.statementOf(node);
  const body = statement?.parent;
  if (!statement || body?.type !== 'body_statement' || body.parent?.type !== 'method') return false;
  return document.statementsOf(body).at(-1)?.id === statement.id;
}

export function classify(document: FixDocument, operand: Node): Use {
  let node = operand;
  while (node.parent?.type === 'parenthesized_expression') node = node.parent;
  const parent = node.parent;
  if (!parent) return { kind: 'value' };
  if (/expression_statement/.test(parent.type) || document.syntax.blocks.has(parent.type))
    return returnedImplicitly(document, node) ? { kind: 'value' } : { kind: 'ignored' };
  const operator = operatorOf(parent);
  if (operator && /binary|comparison/.test(parent.type)) {
    if (LOGICAL.has(operator)) {
      const outer = classify(document, parent);
      return outer.kind === 'condition' || outer.kind === 'ignored' || outer.kind === 'test'
        ? { kind: 'condition', operand: node }
        : { kind: 'value' };
    }
    const left = parent.childForFieldName('left') ?? parent.namedChild(0);
    const right = parent.childForFieldName('right') ?? parent.namedChild(parent.namedChildCount - 1);
    const other = left?.id === node.id ? right : left;
    const test = other && comparisonTest(operator, other.text.trim(), left?.id === node.id);
    return test ? { kind: 'test', node: parent, operand: node, test } : { kind: 'value' };
  }
  // Java: `Long.valueOf(1).equals(reply)`, `reply.equals(1L)`, `Boolean.TRUE.equals(reply)`.
  if (parent.type === 'method_invocation' && parent.childForFieldName('name')?.text === 'equals') {
    const object = parent.childForFieldName('object');
    const argument = parent.childForFieldName('arguments')?.namedChild(0);
    const other = object?.id === node.id ? argument : argument?.id === node.id ? object : undefined;
    const test = other && comparisonTest('==', other.text.trim(), true);
    return test ? { kind: 'test', node: parent, operand: node, test } : { kind: 'value' };
  }
  if (NEGATIONS.has(parent.type) && /^(!|not)$/.test(operatorOf(parent) ?? parent.child(0)?.text ?? '')) {
    const outer = classify(document, parent);
    return outer.kind === 'value' ? outer : { kind: 'test', node: parent, operand: node, test: 'failure' };
  }
  const condition = parent.childForFieldName('condition');
  if (condition?.id === node.id) return { kind: 'condition', operand: node };
  return { kind: 'value' };
}

/** The simple name a reply is stored in (`ok = ...`, `const ok = ...`, `$ok = ...`), its declaration, and whether it is typed. */
function binding(value: Node): { name: string; typed: boolean } | 'field' | undefined {
  const parent = value.parent;
  if (!parent) return undefined;
  const target = parent.childForFieldName('left') ?? parent.childForFieldName('name');
  const isValue = (parent.childForFieldName('right') ?? parent.childForFieldName('value'))?.id === value.id;
  const csharpValue =
    parent.type === 'variable_declarator' && parent.namedChild(parent.namedChildCount - 1)?.id === value.id;
  if (!target || !(isValue || csharpValue) || !/declarator|assignment/.test(parent.type)) return undefined;
  if (!/^(identifier|variable_name)$/.test(target.type)) return 'field';
  const declaration = parent.type === 'variable_declarator' ? parent.parent : parent;
  // Java and C# declare a type (`Long ok`); TypeScript may annotate one (`const ok: number`).
  const typed =
    (!!declaration?.childForFieldName('type') && declaration.childForFieldName('type')?.text !== 'var') ||
    !!parent.childForFieldName('type');
  return { name: target.text, typed };
}

/** Whether the reply is used as a value before, or is assigned again after, its binding (then it is not only tested). */
function usesOf(document: FixDocument, scope: Node, name: string, declaration: Node): Node[] | undefined {
  const uses = document
    .identifiers(scope, name)
    .filter((node) => node.startIndex >= declaration.endIndex || node.endIndex <= declaration.startIndex);
  for (const use of uses) {
    const holder = use.parent;
    const assigned =
      holder && /assignment|declarator/.test(holder.type) && holder.childForFieldName('left')?.id === use.id;
    if (assigned || use.startIndex < declaration.startIndex) return undefined;
  }
  return uses;
}

const parenthesized = (node: Node, text: string) => (/await/.test(node.type) ? `(${text})` : text);

/**
 * The edits that replace the SETNX call `call` with `replacement` and keep every use of its reply
 * meaning what it did; a NoFix when a use cannot be kept.
 */
export function replyEdits(
  document: FixDocument,
  call: Node,
  replacement: string,
  dialect: Dialect,
): TextChange[] | NoFix {
  const reply = dialect.reply;
  const callEdit: TextChange = { start: call.startIndex, end: call.endIndex, text: replacement };
  if (reply.same) return [callEdit];
  const value = document.valueOf(call);
  const scope = document.functionOf(call) ?? document.root;
  const bound = binding(value);
  const direct = bound ? undefined : classify(document, value);
  let uses: Use[];
  let boundName: string | undefined;
  if (bound === 'field') uses = [{ kind: 'value' }];
  else if (bound) {
    const nodes = usesOf(document, scope, bound.name, value.parent!);
    boundName = bound.name;
    uses = !nodes || bound.typed ? [{ kind: 'value' }] : nodes.map((node) => classify(document, node));
  } else uses = [direct!];

  const needsBoolean = (use: Use) =>
    use.kind === 'value' ||
    (use.kind === 'test' && !NEGATIONS.has(use.node.type)) ||
    (use.kind !== 'ignored' && !reply.truthy);
  if (reply.wrap) {
    return [uses.some(needsBoolean) ? { ...callEdit, text: reply.wrap(replacement) } : callEdit];
  }
  const valueText = (node: Node) =>
    rewrite(document, node, node.id === value.id || node.startIndex <= call.startIndex ? [callEdit] : []);
  if (uses.some((use) => use.kind === 'value')) {
    if (!reply.convert)
      return noFix('reply-used', `the reply is used as a value, which ${dialect.library}'s SET does not give back`);
    const converted = reply.convert(parenthesized(value, valueText(value)));
    const holder = value.parent?.type ?? '';
    const bare = /declarator|assignment|return|argument|expression_statement|expression_list/.test(holder);
    return [{ start: value.startIndex, end: value.endIndex, text: bare ? converted : `(${converted})` }];
  }
  const edits: TextChange[] = boundName ? [callEdit] : [];
  for (const use of uses) {
    if (use.kind === 'ignored') {
      if (!boundName) edits.push(callEdit);
      continue;
    }
    if (use.kind === 'condition') {
      if (reply.truthy) {
        if (!boundName) edits.push(callEdit);
        continue;
      }
      const text = reply.success!(parenthesized(use.operand, valueText(use.operand)));
      edits.push({ start: use.operand.startIndex, end: use.operand.endIndex, text });
      continue;
    }
    if (use.kind === 'test') {
      // `!reply` where the new reply is truthy like the old one means the same.
      if (NEGATIONS.has(use.node.type) && reply.truthy) {
        if (!boundName) edits.push(callEdit);
        continue;
      }
      const operand = parenthesized(use.operand, valueText(use.operand));
      const text = use.test === 'success' ? reply.success!(operand) : reply.failure!(operand);
      edits.push({ start: use.node.startIndex, end: use.node.endIndex, text });
    }
  }
  return edits;
}
