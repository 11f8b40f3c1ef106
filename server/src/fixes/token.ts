// LOCK006's fix: a new random token for every acquisition where the lock held a constant ("1",
// "locked", true, LOCK_VALUE). The token is kept where the code already keeps the value: inline in
// the acquire when nothing reads the value back; a local declared before the acquire when the same
// function compares it again (its GET-compare release); the field itself, set at each acquire, when
// the value was a field other methods compare. A token made once per process (WORKER_ID) may be
// compared by code elsewhere as this process's identity: that change is a suggestion.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RedisOp } from '../analysis/ops';
import { unwrap } from '../analysis/syntax';
import { identifierPattern, within } from '../analysis/tree';
import type { TextChange } from '../lockFix';
import type { FixDocument } from './document';
import { importEdits } from './imports';
import { goVersion, JS_LANGUAGES, keptInLocal, tokenExpression } from './owner';
import { releaseBlindDel } from './release';
import { isNoFix, noFix, type NoFix } from './remedy';
import type { PlanContext, PlannedEdit } from './plan';

/** A literal on the right of a declaration: a string, a number, a boolean, nil. */
const LITERAL = /^(?:(['"`]).*\1|-?\d[\d_.]*[lL]?|true|false|True|False|TRUE|FALSE|nil|None|null)$/;

/** A field written as a receiver's member: `self.token`, `this.token`, `$this->token`, `@token`. */
const FIELD = /^(?:self\.|this\.|\$this->|@)\w+$/;

/**
 * Where the value is read back, outside the acquire: an argument of another call on the same key
 * (a release script's token), or a side of a comparison with that key's GET (the GET-compare-DEL
 * release), directly or through the variable the GET's reply went into.
 */
function readersOf(document: FixDocument, acquire: RedisOp, value: Node): Node[] {
  const scope = document.classOf(acquire.call.node) ?? document.root;
  const related = document
    .opsIn(scope)
    .filter((op) => op !== acquire && op.keyText === acquire.keyText && op.kind !== 'acquire');
  const gets = related.filter((op) => op.kind === 'get');
  const replies = gets.flatMap((get) => {
    const holder = document.valueOf(get.call.node).parent;
    const target = holder?.childForFieldName('left') ?? holder?.childForFieldName('name');
    return target && /declarator|assignment/.test(holder!.type) ? [target.text] : [];
  });
  const comparesGet = (comparison: Node) =>
    gets.some((get) => within(get.call.node, comparison)) ||
    replies.some((name) => identifierPattern(name).test(comparison.text));
  const text = value.text;
  const key = acquire.key?.text;
  // Any other call given the same key and the value (StackExchange's LockRelease(key, value), a
  // release helper of the project's own) reads the value too.
  const passedWithKey = (node: Node) => {
    const list = node.parent && /argument/.test(node.parent.type) ? node.parent.parent : node.parent;
    return !!key && !!list && /argument/.test(list.type) && list.namedChildren.some((arg) => arg?.text === key);
  };
  const out: Node[] = [];
  const visit = (node: Node) => {
    if (node.id === value.id) return;
    if (node.text === text) {
      const parent = node.parent;
      const inCall = related.some((op) => within(node, op.call.node)) || passedWithKey(node);
      const compared = !!parent && /binary|comparison/.test(parent.type) && comparesGet(parent);
      if (inCall || compared) out.push(node);
      return;
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  const functions = new Map<number, Node>();
  for (const op of [acquire, ...related]) {
    const fn = document.functionOf(op.call.node);
    if (fn) functions.set(fn.id, fn);
  }
  for (const fn of functions.values()) visit(fn);
  return out;
}

/** The name's declaration value in the file (`WORKER_ID = str(uuid.uuid4())`), when the value is a name. */
function declaredValue(document: FixDocument, name: string): string | undefined {
  const bare = name.replace(/^(?:self::|static::|\w+\.)/, '');
  const pattern = new RegExp(
    `^[ \\t]*(?:(?:private|public|protected|static|final|readonly|const|let|var|export)\\s+)*(?:[\\w<>]+\\s+)?${bare.replace(/\$/g, '\\$')}\\s*(?::\\s*[\\w<>]+\\s*)?:?=\\s*(.+?);?\\s*$`,
    'm',
  );
  return pattern.exec(document.text)?.[1];
}

/** LOCK006: a token per acquisition (a fix), or for a per-process token, the same as a suggestion. */
export function tokenPerAcquisition(
  context: PlanContext,
  op: RedisOp,
  kind: 'fix' | 'suggestion',
): PlannedEdit | NoFix {
  const { document } = context;
  const value = op.value && unwrap(op.value);
  if (!value) return noFix('unread', 'the acquire has no value to replace');
  const valueArg = op.call.args.find((arg) => within(value, arg.node));
  const named = /identifier|field|member|attribute|constant|variable|selector|scoped|class_constant/.test(value.type);
  // A name declared with a computed value (`WORKER_ID = str(uuid.uuid4())`, `NODE_ID = SecureRandom.uuid`).
  const declared = named ? declaredValue(document, value.text) : undefined;
  const generated = declared !== undefined && !LITERAL.test(declared.trim());
  // A per-process token's fix is a suggestion; a literal's is a fix: each planner takes its own.
  if ((kind === 'fix') === generated)
    return noFix('process-token', "the value is this process's id, which other code may compare: pick the suggestion");
  const token = tokenExpression(document, goVersion(context));
  if ('why' in token) return token;
  const imports = importEdits(document, token.imports);
  const readers = readersOf(document, op, value);
  const title = generated
    ? `Make a new token per acquisition (${value.text} is made once per process; code elsewhere may compare it)`
    : `Store a new random token per acquisition instead of ${value.text.length > 20 ? 'the constant' : value.text}`;
  // A blind DEL of the key in the same function: the token and its compare-and-delete come as one fix.
  const fn = document.functionOf(op.call.node);
  const del = fn
    ? document
        .opsIn(fn)
        .find(
          (other) =>
            other.kind === 'del' && other.keyText === op.keyText && other.call.node.startIndex > op.call.node.endIndex,
        )
    : undefined;
  if (del && !generated) {
    const combined = releaseBlindDel(context, del, false);
    if (isNoFix(combined)) return combined;
    return {
      ...combined,
      title: `Store a new random token per acquisition and release it with compare-and-delete${combined.created?.length ? combined.title.replace(/^.*(, adding .*)$/, '$1') : ''}`,
    };
  }
  if (!readers.length) {
    const target = valueArg && valueArg.value.id === op.value!.id ? op.value! : value;
    return { title, edits: [...imports, { start: target.startIndex, end: target.endIndex, text: token.text }] };
  }
  const statement = document.statementOf(op.call.node);
  if (!statement) return noFix('layout', 'the acquire is not in a statement the fix can put a token before');
  const indent = document.indentAt(statement.startIndex);
  const before = document.lineStart(statement.startIndex);
  if (FIELD.test(value.text)) {
    // The field the constant sat in, set afresh at each acquire: every method that reads it sees the token.
    const assign = document.languageId === 'php' || JS_LANGUAGES.has(document.languageId) ? ';' : '';
    return {
      title,
      edits: [...imports, { start: before, end: before, text: `${indent}${value.text} = ${token.text}${assign}\n` }],
    };
  }
  if (!fn || readers.some((reader) => !within(reader, fn) || reader.startIndex < op.call.node.startIndex))
    return noFix(
      'token-flow',
      'the value is compared in another function that gets nothing from the acquire: keep the token in a field, or return it from the acquire',
    );
  const kept = keptInLocal(document, op, token.text);
  if (isNoFix(kept)) return kept;
  const edits: TextChange[] = [
    ...imports,
    ...kept.edits,
    ...readers.map((reader) => ({ start: reader.startIndex, end: reader.endIndex, text: kept.token })),
  ];
  return { title, edits };
}
