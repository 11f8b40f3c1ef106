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
import { noFix, type NoFix } from './remedy';
import type { PlanContext, PlannedEdit } from './plan';

/** A token expression in the file's language and the import lines it needs. */
interface TokenExpression {
  text: string;
  imports: string[];
}

const JS_LANGUAGES = new Set(['javascript', 'javascriptreact', 'typescript', 'typescriptreact']);

/** The language's own unique-token expression, using what the file already imports where it can. */
function tokenExpression(document: FixDocument, goVersion: string | undefined): TokenExpression | NoFix {
  const text = document.text;
  const language = document.languageId;
  if (language === 'python') {
    if (/^from uuid import .*\buuid4\b/m.test(text)) return { text: 'uuid4().hex', imports: [] };
    return { text: 'uuid.uuid4().hex', imports: ['import uuid'] };
  }
  if (JS_LANGUAGES.has(language)) {
    if (/\{[^}]*\brandomUUID\b[^}]*\}\s*(=\s*require\(|from\s)\s*['"](node:)?crypto['"]/.test(text))
      return { text: 'randomUUID()', imports: [] };
    const cjs = /\brequire\(/.test(text) && !/^\s*(import|export)\s/m.test(text);
    return {
      text: 'randomUUID()',
      imports: [cjs ? "const { randomUUID } = require('node:crypto');" : "import { randomUUID } from 'node:crypto';"],
    };
  }
  switch (language) {
    case 'java':
      return { text: 'UUID.randomUUID().toString()', imports: ['import java.util.UUID;'] };
    case 'csharp':
      return { text: 'Guid.NewGuid().ToString("N")', imports: ['using System;'] };
    case 'php':
      return { text: 'bin2hex(random_bytes(16))', imports: [] };
    case 'ruby':
      return { text: 'SecureRandom.uuid', imports: ["require 'securerandom'"] };
    case 'go': {
      if (/"github\.com\/google\/uuid"/.test(text)) return { text: 'uuid.NewString()', imports: [] };
      if (/"math\/rand(\/v2)?"/.test(text))
        return noFix('token-import', 'the file imports math/rand, whose name crypto/rand would take');
      // crypto/rand.Text (Go 1.24): 26 random base32 characters.
      const [major, minor] = (goVersion ?? '').split('.').map(Number);
      if (!(major > 1 || (major === 1 && minor >= 24)))
        return noFix(
          'token-import',
          'no token generator without a new dependency: go.mod says Go before 1.24 (rand.Text)',
        );
      return { text: 'rand.Text()', imports: ['import "crypto/rand"'] };
    }
    default:
      return noFix('language', `no token expression for ${language}`);
  }
}

/** A literal on the right of a declaration: a string, a number, a boolean, nil. */
const LITERAL = /^(?:(['"`]).*\1|-?\d[\d_.]*[lL]?|true|false|True|False|TRUE|FALSE|nil|None|null)$/;

/** A field written as a receiver's member: `self.token`, `this.token`, `$this->token`, `@token`. */
const FIELD = /^(?:self\.|this\.|\$this->|@)\w+$/;

/** The names a fresh local takes, in the language's style. */
const LOCAL_NAMES = ['token', 'lockToken', 'lock_token', 'ownerToken'];

/** The declaration of a local `name` holding `value`, as a statement of the language. */
function declaration(language: string, name: string, value: string): string {
  if (JS_LANGUAGES.has(language)) return `const ${name} = ${value};`;
  switch (language) {
    case 'java':
      return `String ${name} = ${value};`;
    case 'csharp':
      return `var ${name} = ${value};`;
    case 'go':
      return `${name} := ${value}`;
    case 'php':
      return `${name} = ${value};`;
    default:
      return `${name} = ${value}`;
  }
}

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
  const out: Node[] = [];
  const visit = (node: Node) => {
    if (node.id === value.id) return;
    if (node.text === text) {
      const parent = node.parent;
      const inCall = related.some((op) => within(node, op.call.node));
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
  if (!readers.length) {
    const target = valueArg && valueArg.value.id === op.value!.id ? op.value! : value;
    return { title, edits: [...imports, { start: target.startIndex, end: target.endIndex, text: token.text }] };
  }
  const fn = document.functionOf(op.call.node);
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
  const prefix = document.languageId === 'php' ? '$' : '';
  const name = LOCAL_NAMES.map((each) => prefix + each).find(
    (each) => !identifierPattern(each).test(document.text.slice(fn.startIndex, fn.endIndex)),
  );
  if (!name) return noFix('layout', 'no free name for the token');
  const edits: TextChange[] = [
    ...imports,
    { start: before, end: before, text: `${indent}${declaration(document.languageId, name, token.text)}\n` },
    { start: value.startIndex, end: value.endIndex, text: name },
    ...readers.map((reader) => ({ start: reader.startIndex, end: reader.endIndex, text: name })),
  ];
  return { title, edits };
}

/** The `go` directive of the project's go.mod, if any. */
function goVersion(context: PlanContext): string | undefined {
  const mod = context.manifests.find((manifest) => manifest.name === 'go.mod');
  return mod && /^go\s+(\d+\.\d+)/m.exec(mod.text)?.[1];
}
