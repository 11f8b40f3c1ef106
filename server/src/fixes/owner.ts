// The token a release or a renewal compares: the value the acquire wrote, as the code already
// keeps it where the release runs. A field (`self.token`, `this.token`, `$this->token`, `@token`,
// Go's `l.token`) reads the same in every method; a local or parameter reads where it is in scope
// (the acquire's own function, or a release that takes a parameter of that name); a value computed
// in place (`str(uuid.uuid4())`) is kept in a local first, when acquire and release share a
// function. Anything else never reaches the release: no fix, and the reason says where to keep it.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RedisOp } from '../analysis/ops';
import { unwrap } from '../analysis/syntax';
import { identifierPattern, within } from '../analysis/tree';
import type { TextChange } from '../lockFix';
import type { FixDocument } from './document';
import { isNoFix, noFix, type NoFix } from './remedy';

export interface Owner {
  /** The token expression at the release. */
  token: string;
  /** Edits that keep the token first (a local declared before the acquire). */
  edits: TextChange[];
  /** The acquire the token comes from. */
  acquire: RedisOp;
}

const FIELD = /^(?:self\.|this\.|\$this->|@)[\w]+$/;
const NAME = /^\$?[A-Za-z_]\w*$/;
const LITERAL =
  /^(?:string|number|integer|true|false|none|nil|null|decimal_integer_literal|int_literal|interpreted_string_literal|encapsed_string|string_literal|simple_symbol)/;
export const JS_LANGUAGES = new Set(['javascript', 'javascriptreact', 'typescript', 'typescriptreact']);

/** The acquire of the key `op` works on: in its function first, then its class, then the file. */
export function acquireOf(document: FixDocument, op: RedisOp): RedisOp | undefined {
  const acquires = document.allOps().filter((other) => other.kind === 'acquire' && other.keyText === op.keyText);
  const fn = document.functionOf(op.call.node);
  const cls = document.classOf(op.call.node);
  return (
    acquires.find(
      (each) => !!fn && within(each.call.node, fn) && each.call.node.startIndex < op.call.node.startIndex,
    ) ??
    acquires.find((each) => !!cls && within(each.call.node, cls)) ??
    (acquires.length === 1 ? acquires[0] : undefined)
  );
}

/** Whether `cls` declares a field `name` (Java's and C#'s field declarations). */
function isField(cls: Node, name: string): boolean {
  return cls
    .descendantsOfType(['field_declaration'])
    .some(
      (field) =>
        !!field &&
        field
          .descendantsOfType(['variable_declarator'])
          .some((each) => each?.childForFieldName('name')?.text === name || each?.namedChild(0)?.text === name),
    );
}

/** Whether `fn` declares a local or a parameter `name` (which would hide a field of that name). */
function declaresLocal(fn: Node, name: string): boolean {
  return (
    parameterNames(fn).includes(name) ||
    fn
      .descendantsOfType(['local_variable_declaration', 'local_declaration_statement'])
      .some(
        (each) =>
          !!each &&
          each
            .descendantsOfType(['variable_declarator'])
            .some((d) => d?.childForFieldName('name')?.text === name || d?.namedChild(0)?.text === name),
      )
  );
}

/** The parameters of `fn`, as written. */
function parameterNames(fn: Node): string[] {
  const list = fn.childForFieldName('parameters');
  return list ? [...list.text.matchAll(/[$@]?[A-Za-z_]\w*/g)].map((match) => match[0]) : [];
}

/** A Go method's receiver name (`l` of `func (l *Lock) Release()`). */
function goReceiver(fn: Node | undefined): string | undefined {
  const receiver = fn?.childForFieldName('receiver');
  return receiver ? /\(\s*(\w+)\s/.exec(receiver.text)?.[1] : undefined;
}

/** Whether `name` is assigned between `from` and `to` (then it may no longer hold the token). */
function reassigned(document: FixDocument, name: string, from: number, to: number): boolean {
  const between = document.text.slice(from, to);
  return new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, '\\$')}\\s*(=[^=]|:=)`).test(between);
}

/** Where the token of the lock `op` (a release or a renewal) works on comes from, at `op`. */
export function ownerAt(document: FixDocument, op: RedisOp): Owner | NoFix {
  const owner = ownerOf(document, op);
  if (isNoFix(owner)) return owner;
  // A value kept in a new local is as typed as what made it.
  const typed = owner.edits.length
    ? !TYPED.has(document.grammar) || MADE_STRING.test(unwrap(owner.acquire.value!).text)
    : isString(document, owner.token);
  return typed ? owner : noFix('token-type', `the token is not a string here, and the helper compares string tokens`);
}

/** Languages whose helper calls take the token typed as a string. */
const TYPED = new Set(['go', 'java', 'c-sharp']);
/** Expressions that make a string. */
const MADE_STRING =
  /^(?:"|`|\$"|uuid\.NewString\(\)|fmt\.Sprintf\(|rand\.Text\(\)|strconv\.|String\.valueOf\(|.*\.String\(\)|.*\.toString\(\)|.*\.ToString\()/;

/** Go, Java, C#: whether `token` is declared a string (the helper's release and extend take one); elsewhere any value is. */
function isString(document: FixDocument, token: string): boolean {
  const name = token.replace(/^(?:this\.|\w+\.)/, '');
  const text = document.text;
  const assigned = (pattern: string) =>
    [...text.matchAll(new RegExp(pattern, 'g'))].some((match) => MADE_STRING.test(match[1].trim()));
  switch (document.grammar) {
    case 'go':
      return (
        new RegExp(`\\b${name}\\b(?:\\s*,\\s*\\w+)*\\s+string\\b`).test(text) ||
        assigned(`\\b${name}\\s*:?=\\s*([^\\n]+)`)
      );
    case 'java':
      return new RegExp(`\\bString\\s+${name}\\b`).test(text);
    case 'c-sharp':
      return (
        new RegExp(`\\bstring\\s+${name}\\b`).test(text) ||
        assigned(`\\bvar\\s+${name}\\s*=\\s*([^;\\n]+)`) ||
        assigned(`\\b${name}\\s*=\\s*([^;\\n]+)`)
      );
    default:
      return true;
  }
}

function ownerOf(document: FixDocument, op: RedisOp): Owner | NoFix {
  const acquire = acquireOf(document, op);
  if (!acquire?.value)
    return noFix('no-acquire', 'no acquire of this key in the file: the release cannot know which token is its own');
  const value = unwrap(acquire.value);
  const here = document.functionOf(op.call.node);
  const there = document.functionOf(acquire.call.node);
  const sameFunction = !!here && here.id === there?.id;
  const text = value.text;
  if (LITERAL.test(value.type) || /^(?:[A-Z_][A-Z0-9_]*|\w+\.[A-Z_][A-Z0-9_]*|self::\w+)$/.test(text))
    return noFix(
      'constant-token',
      'the lock holds a constant: every holder writes the same value, so comparing it proves nothing (LOCK006 first)',
    );
  if (FIELD.test(text)) return { token: text, edits: [], acquire };
  // Go: `l.token` in Acquire is `m.token` in a Release whose receiver is named m.
  const goField = /^(\w+)\.(\w+)$/.exec(text);
  if (goField && document.grammar === 'go' && goReceiver(there) === goField[1]) {
    const receiver = goReceiver(here);
    if (receiver) return { token: `${receiver}.${goField[2]}`, edits: [], acquire };
  }
  if (NAME.test(text)) {
    if (sameFunction && !reassigned(document, text, acquire.call.node.endIndex, op.call.node.startIndex))
      return { token: text, edits: [], acquire };
    // Java, C#: a field named without `this.` reads the same in every method that has no local of that name.
    const cls = document.classOf(acquire.call.node);
    if (cls && here && within(here, cls) && isField(cls, text) && !declaresLocal(here, text))
      return { token: text, edits: [], acquire };
    if (here && parameterNames(here).includes(text)) return { token: text, edits: [], acquire };
    return noFix(
      'token-flow',
      `the token ${text} is a local of the acquire's function: keep it in a field, or pass it to the release`,
    );
  }
  // A value made in place (`str(uuid.uuid4())`): kept in a local before the acquire, then compared.
  if (!sameFunction)
    return noFix('token-flow', 'the token is made inside the acquire call and kept nowhere the release can read it');
  const kept = keptInLocal(document, acquire, text);
  return isNoFix(kept) ? kept : { ...kept, acquire };
}

/**
 * The acquire's value kept in a new local declared just before the acquire's statement (a name the
 * function does not use yet), and the acquire writing that local: the token a release can compare.
 */
export function keptInLocal(
  document: FixDocument,
  acquire: RedisOp,
  valueText: string,
): { token: string; edits: TextChange[] } | NoFix {
  const fn = document.functionOf(acquire.call.node);
  const statement = document.statementOf(acquire.call.node);
  if (!fn || !statement || !acquire.value)
    return noFix('layout', 'the acquire is not a statement a token can be kept before');
  const prefix = document.languageId === 'php' ? '$' : '';
  const name = ['token', 'lockToken', 'lock_token', 'ownerToken']
    .map((each) => prefix + each)
    .find((each) => !identifierPattern(each).test(fn.text));
  if (!name) return noFix('layout', 'no free name for the token');
  const at = document.lineStart(statement.startIndex);
  const value = unwrap(acquire.value);
  return {
    token: name,
    edits: [
      {
        start: at,
        end: at,
        text: `${document.indentAt(statement.startIndex)}${localDeclaration(document.languageId, name, valueText)}\n`,
      },
      { start: value.startIndex, end: value.endIndex, text: name },
    ],
  };
}

/** A local `name` holding `value`: `const token = ...;`, `token := ...`, `$token = ...;`. */
export function localDeclaration(language: string, name: string, value: string): string {
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

/** A token expression in the file's language and the import lines it needs. */
export interface TokenExpression {
  text: string;
  imports: string[];
}

/** The language's own unique-token expression, using what the file already imports where it can. */
export function tokenExpression(document: FixDocument, goVersion: string | undefined): TokenExpression | NoFix {
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

/** The `go` directive of the project's go.mod, if any. */
export function goVersion(context: { manifests: readonly { name: string; text: string }[] }): string | undefined {
  const mod = context.manifests.find((manifest) => manifest.name === 'go.mod');
  return mod && /^go\s+(\d+\.\d+)/m.exec(mod.text)?.[1];
}
