// LOCK003's and LOCK004's fix: the release becomes one compare-and-delete through the project's
// lock helper (`release_lock(r, key, token)`, `await releaseLock(redis, key, token)`,
// `Locksmith.releaseLock(jedis, key, token)`, `locksmith.ReleaseLock(ctx, rdb, key, token)`...)
// with the user's client, key and the token the code already has (owner.ts). The method keeps its
// signature and what it returns: a test of the DEL's count (`== 1`) tests the helper's bool, a
// returned count is computed from it; LOCK004's GET-and-compare goes, its test now asks the helper.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { Finding } from '../analysis';
import { clientOf, isAsync } from '../analysis/fix';
import type { RedisOp } from '../analysis/ops';
import { identifierPattern, within } from '../analysis/tree';
import type { TextChange } from '../lockFix';
import { fixClient } from '../quickFix';
import { helperCall } from '../../../snippets/helperApi';
import type { FixDocument } from './document';
import { helperClientBlocker, helperImports, projectHelper, type ProjectHelper } from './helper';
import { importEdits } from './imports';
import { goVersion, keptInLocal, ownerAt, tokenExpression, type Owner } from './owner';
import type { PlanContext, PlannedEdit } from './plan';
import { isNoFix, noFix, unreadCall, type NoFix } from './remedy';
import { classify, NEGATIONS } from './replies';

/** The language's true, for a release answered before the fix returned the DEL's count test. */
const TRUE: Record<string, string> = { python: 'True' };

const AWAITING = new Set(['javascript', 'javascriptreact', 'typescript', 'typescriptreact', 'csharp']);

/** The helper call for one low-level op on the user's client and key, with what it needs. */
export interface HelperSite {
  helper: ProjectHelper;
  /** How the call is made in a function that cannot await it: as a task returned (C#), or blocking on it. */
  unawaited?: 'task' | 'blocking';
  /** The client expression the call passes (`r`, `self.client`, `$this->redis`). */
  client: string;
  key: string;
  /** Go's context argument, as the call had it. */
  context?: string;
  /** redis-py: the call was awaited (a redis.asyncio client). */
  async: boolean;
  /** Helper names the file already uses for its own things (Python and JavaScript import names bare). */
  clashes?: Set<string>;
}

/** The alias a clashing helper name is imported under: `locksmithReleaseLock`, `locksmith_release_lock`. */
const aliasOf = (name: string) =>
  name.includes('_') ? `locksmith_${name}` : `locksmith${name[0].toUpperCase()}${name.slice(1)}`;

/** A Go method's receiver name (`m` of `func (m *Mutex) Unlock`). */
function goReceiverOf(fn: Node | undefined): string | undefined {
  const receiver = fn?.childForFieldName('receiver');
  return receiver ? /\(\s*(\w+)\s/.exec(receiver.text)?.[1] : undefined;
}

/**
 * Spring: the helper is built on the template the code calls (`new Locksmith(redisTemplate)`), and
 * its constructor takes a StringRedisTemplate: a call on anything else (a `RedisTemplate<String,
 * Object>`, whose values another serializer writes, so the helper's compare would never match) or
 * on a template the file does not declare is refused with what the helper needs. Undefined when
 * the call can take the helper.
 */
export function springBlocker(document: FixDocument, client: string): NoFix | undefined {
  const type = springTemplateType(document.text, client.replace(/^this\./, ''));
  if (type === 'StringRedisTemplate') return undefined;
  return noFix(
    'spring',
    type
      ? `the Spring lock helper is built on a StringRedisTemplate; ${client} is a ${type}, whose values it would not read as strings`
      : `the Spring lock helper is built on a StringRedisTemplate; the file does not say that ${client} is one`,
  );
}

/** The declared type of `name` in a Java file (a field, a parameter or a local), generics kept. */
export function springTemplateType(text: string, name: string): string | undefined {
  const declared = new RegExp(`\\b((?:[\\w.]+\\.)?[A-Z]\\w*(?:<[^;(){}=]*>)?)\\s+${name}\\s*[;=,)]`).exec(text)?.[1];
  return declared?.replace(/^(?:[a-z]\w*\.)+/, '');
}

/** The helper, client and key a fix of `op` calls the helper with; a NoFix when the helper cannot be called there. */
export function helperSite(context: PlanContext, op: RedisOp, blocking = false): HelperSite | NoFix {
  const { document, env } = context;
  const receiver = op.call.receiver?.text;
  const fn = document.functionOf(op.call.node);
  // Go: the receiver's field (`m.rdb` in `func (m *Mutex) Unlock`) is as good as a variable.
  const goField = document.grammar === 'go' && receiver && /^(\w+)\.\w+$/.exec(receiver);
  const client = goField && goReceiverOf(fn) === goField[1] ? receiver : clientOf(receiver);
  if (!client)
    return noFix(
      'client-expression',
      'the call is not on a client variable the helper can be given (a pipeline, a wrapper)',
    );
  const library = fixClient(context.languageId, document.text, context.manifests);
  if (!library)
    return noFix('client-unknown', 'no import or manifest says which client library this is, so which helper to use');
  const spring = library.id === 'spring-data-redis' ? springBlocker(document, client) : undefined;
  if (spring) return spring;
  const connection = helperClientBlocker(library.id, document.text, client, 'release');
  if (connection) return connection;
  let unawaited: HelperSite['unawaited'];
  if (AWAITING.has(context.languageId) && (!fn || !isAsync(fn))) {
    // C#: `Task<bool> ReleaseAsync() => db.KeyDeleteAsync(key)` returns the task; a sync method blocks on it (a suggestion).
    const returned =
      /Async$/.test(op.call.nameNode.text) && document.valueOf(op.call.node).parent?.type !== 'expression_statement';
    if (context.languageId === 'csharp' && returned) unawaited = 'task';
    else if (context.languageId === 'csharp' && blocking) unawaited = 'blocking';
    else
      return noFix(
        'not-async',
        context.languageId === 'csharp'
          ? "the helper's release is async and this method is not: pick the suggestion that blocks on it, or make the method async"
          : "the helper's release is awaited, and this function is not async",
      );
  }
  const helper = projectHelper(library, {
    pack: env.pack,
    file: env.file,
    root: env.root,
    text: document.text,
    manifests: context.manifests,
    readFile: (path) => env.readFile(path),
    canCreateFiles: env.canCreateFiles,
  });
  if (isNoFix(helper)) return helper;
  const key = op.call.args.find((arg) => !!op.key && within(op.key, arg.node));
  if (!key) return noFix('unread', 'the key argument could not be read');
  // GLIDE's DEL takes a list in every binding, and its custom command one list of the command's
  // words: a list of the lock key alone (after the command's name) is the lock key.
  const command = /^custom_?command$/i.test(op.call.nameNode.text) ? 1 : 0;
  const glideKey =
    library.id.startsWith('glide-') && op.key && onlyElement(key.value, op.key, command) ? op.key : undefined;
  if (!glideKey && /array|list|spread|splat|creation|initializer/.test(key.value.type))
    return noFix('many-keys', 'the call is given a list of keys, not the lock key');
  const first = op.call.args[0];
  const goContext = document.grammar === 'go' && first && first.node.id !== key.node.id && !/^"/.test(first.node.text);
  // go-redis's calls take a context first: one without it is a wrapper of the project's own.
  if (library.id === 'go-redis' && !goContext)
    return noFix('client-expression', 'the call takes no context: a wrapper of your own, not a go-redis client');
  return {
    helper,
    ...(unawaited && { unawaited }),
    client,
    key: glideKey?.text ?? key.node.text,
    ...(goContext && { context: first.node.text }),
    // GLIDE for Python's helper is asyncio only: its calls say `await` themselves.
    async: library.id === 'redis-py' && document.valueOf(op.call.node).type === 'await',
    clashes: ownNames(document, helper.helperImport),
  };
}

/** Whether `list` (`[k]`, `new String[] {k}`, `[]string{k}`) holds `element` and, after `skip` words, nothing else. */
function onlyElement(list: Node, element: Node, skip: number): boolean {
  const holder = /^(?:array|list|array_initializer|literal_value)$/.test(list.type)
    ? list
    : list.descendantsOfType(['array', 'list', 'array_initializer', 'literal_value'])[0];
  const elements = holder?.namedChildren.filter((child) => !!child && !child.type.includes('comment')) ?? [];
  return elements.length === skip + 1 && within(element, elements[skip]!);
}

/** Helper function names the file uses itself (a def, a function, a variable), other than through its helper import. */
function ownNames(document: FixDocument, helperImport: string): Set<string> {
  const names = ['release_lock', 'extend_lock', 'try_acquire', 'releaseLock', 'extendLock', 'tryAcquire'];
  const own = (name: string) =>
    // Declared here (a def, a function, a variable, a class), or imported from somewhere that is not the helper.
    new RegExp(`\\b(def|function|const|let|var|class)\\s+${name}\\b`).test(document.text) ||
    document.text
      .split('\n')
      .some(
        (line) =>
          /^\s*(from|import)\b|require\(/.test(line) &&
          identifierPattern(name).test(line) &&
          !line.includes(helperImport),
      );
  return new Set(names.filter(own));
}

/** The call expression of the helper's `op` at `site`, and its imports. */
export function siteCall(
  site: HelperSite,
  op: 'release' | 'extend',
  token: string,
  ttlMs?: string,
): { code: string; importedNames: string[] } {
  const call = helperCall(site.helper.client.id, op, {
    client: site.client,
    key: site.key,
    token,
    ...(ttlMs !== undefined && { ttlMs }),
    ...(site.async && { async: true }),
  });
  // go-redis: the helper API writes `ctx`; the code's own context argument is what it has in scope.
  let code = site.context ? call.code.replace(/\(ctx, /, `(${site.context}, `) : call.code;
  if (site.unawaited === 'task') code = code.replace(/^await /, '');
  if (site.unawaited === 'blocking') code = `${code.replace(/^await /, '')}.GetAwaiter().GetResult()`;
  // A name of the file's own (its own release_lock) keeps its meaning: the helper's comes in under an alias.
  const names = call.importedNames.map((name) => (site.clashes?.has(name) ? `${name} as ${aliasOf(name)}` : name));
  for (const name of call.importedNames) if (site.clashes?.has(name)) code = code.replace(name, aliasOf(name));
  return { code, importedNames: names };
}

/** The helper's imports and, when the project has none yet, the helper file. */
export function helperChanges(document: FixDocument, site: HelperSite, importedNames: string[]) {
  const lines = helperImports(site.helper, importedNames);
  return {
    imports: joinedImport(document, site.helper.helperImport, lines) ?? importEdits(document, lines),
    created: site.helper.created ? [site.helper.created] : [],
    ...(site.helper.created && site.helper.note && { note: site.helper.note }),
  };
}

/**
 * Python and JavaScript: names from the helper join the file's import of it (`from locksmith import
 * extend_lock, release_lock`) rather than a second import line of the same module.
 */
export function joinedImport(
  document: Pick<FixDocument, 'text'>,
  spec: string,
  lines: string[],
): TextChange[] | undefined {
  const [line] = lines;
  const names =
    lines.length === 1 ? /(?:import\s*\{?|const\s*\{)\s*([^}]+?)\s*\}?\s*(?:from|=|$)/.exec(line)?.[1] : undefined;
  if (!names || document.text.includes(line)) return undefined;
  const quoted = spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const existing = new RegExp(
    `^(from ${quoted} import [\\w, ]+?)$|^(import \\{[^}]*?)\\s*\\} from '${quoted}';?$|^(const \\{[^}]*?)\\s*\\} = require\\('${quoted}'\\);?$`,
    'm',
  ).exec(document.text);
  if (!existing) return undefined;
  const head = existing[1] ?? existing[2] ?? existing[3];
  const at = existing.index + head.length;
  const added = names
    .split(',')
    .map((name) => name.trim())
    .filter((name) => !identifierPattern(name.split(/\s+as\s+|:\s*/).at(-1)!).test(head));
  return added.length ? [{ start: at, end: at, text: `, ${added.join(', ')}` }] : [];
}

/** A boolean call written where a count was: what a use of the count becomes. */
function countFrom(language: string, code: string): string {
  switch (language) {
    case 'python':
    case 'csharp':
      return code; // a bool is an int in Python; C#'s KeyDelete replied a bool already
    case 'java':
      return `(${code} ? 1L : 0L)`;
    default:
      return `(${/^await /.test(code) ? `(${code})` : code} ? 1 : 0)`;
  }
}

const negated = (language: string, code: string) =>
  language === 'python'
    ? `not ${code}`
    : language === 'ruby'
      ? `!${code}`
      : `!${/^await /.test(code) ? `(${code})` : code}`;

/**
 * The DEL replaced by the release, its reply's uses kept (non-Go languages). `boolean`: the DEL
 * answered a boolean already (Spring's `delete(key)`), so a use of its value takes the helper's as it is.
 */
function replaceDel(document: FixDocument, del: RedisOp, code: string, boolean = false): TextChange[] | NoFix {
  const value = document.valueOf(del.call.node);
  const use = classify(document, value);
  const language = document.languageId;
  const bracket = (text: string) => (/^await /.test(text) ? `(${text})` : text);
  switch (use.kind) {
    case 'ignored':
    case 'condition':
      return [{ start: value.startIndex, end: value.endIndex, text: use.kind === 'condition' ? bracket(code) : code }];
    case 'test': {
      if (NEGATIONS.has(use.node.type))
        return [{ start: use.operand.startIndex, end: use.operand.endIndex, text: bracket(code) }];
      const text = use.test === 'success' ? bracket(code) : negated(language, code);
      return [{ start: use.node.startIndex, end: use.node.endIndex, text }];
    }
    case 'value':
      return [{ start: value.startIndex, end: value.endIndex, text: boolean ? code : countFrom(language, code) }];
  }
}

/** Go: the DEL statement forms, each with the helper's (bool, error) results. */
function replaceGoDel(document: FixDocument, del: RedisOp, code: string): TextChange[] | NoFix {
  const statement = document.statementOf(del.call.node);
  if (!statement) return noFix('layout', 'the DEL is not a statement');
  const text = document.text.slice(statement.startIndex, statement.endIndex);
  const callText = document.text.slice(del.call.node.startIndex, del.call.node.endIndex);
  const whole = (replacement: string) => [{ start: statement.startIndex, end: statement.endIndex, text: replacement }];
  const rest = text.slice(text.indexOf(callText) + callText.length);
  const tail = /^(\.(Err|Result)\(\))?/.exec(rest)![0];
  const after = rest.slice(tail.length);
  const before = text.slice(0, text.indexOf(callText));
  // `rdb.Del(ctx, key)`, `defer rdb.Del(ctx, key)`, `go ...`: the helper's results are dropped as the DEL's were.
  if (/^(defer |go )?$/.test(before) && !after.trim()) return whole(`${before}${code}`);
  // `err = rdb.Del(ctx, key).Err()`, `_, err = conn.Do("DEL", key)`: the error only.
  const assigned = /^(?:_\s*,\s*)?(\w+)\s*(:?=)\s*$/.exec(before);
  if (assigned && !after.trim()) return whole(`_, ${assigned[1]} ${assigned[2]} ${code}`);
  // `if err := rdb.Del(ctx, key).Err(); err != nil {`
  const initializer = /^if (?:_\s*,\s*)?(\w+) := $/.exec(before);
  if (initializer)
    return [
      {
        start: del.call.node.startIndex - before.length + 3,
        end: del.call.node.endIndex + tail.length,
        text: `_, ${initializer[1]} := ${code}`,
      },
    ];
  // `return rdb.Del(ctx, key).Err()`: the error, kept in a name of its own first.
  if (before === 'return ' && tail === '.Err()' && !after.trim()) {
    const fn = document.functionOf(del.call.node);
    const name = ['releaseErr', 'errRelease'].find((each) => !identifierPattern(each).test(fn?.text ?? ''));
    if (!name) return noFix('layout', 'no free name for the release error');
    const indent = document.indentAt(statement.startIndex);
    return whole(`_, ${name} := ${code}\n${indent}return ${name}`);
  }
  return noFix('reply-used', "the DEL's reply is used in a way the helper's (bool, error) cannot stand in for");
}

/** LOCK003: the blind DEL becomes the helper's compare-and-delete with the token the code has. */
export function releaseBlindDel(context: PlanContext, del: RedisOp, blocking: boolean): PlannedEdit | NoFix {
  const { document } = context;
  if (
    del.call.args.filter((arg) => arg.node.startIndex >= (del.key?.startIndex ?? 0)).length > 1 &&
    document.grammar !== 'go'
  )
    return noFix('many-keys', 'the DEL deletes several keys at once');
  const site = helperSite(context, del, blocking);
  if (isNoFix(site)) return site;
  let owner = ownerAt(document, del);
  if (isNoFix(owner) && owner.code === 'constant-token') owner = newToken(context, del);
  if (isNoFix(owner)) return owner;
  const call = siteCall(site, 'release', owner.token);
  const edits =
    document.grammar === 'go'
      ? replaceGoDel(document, del, call.code)
      : replaceDel(document, del, call.code, site.helper.client.id === 'spring-data-redis');
  if (isNoFix(edits)) return edits;
  const { imports, created, note } = helperChanges(document, site, call.importedNames);
  return {
    title: releaseTitle(site, owner),
    edits: [...imports, ...owner.edits, ...edits],
    created,
    ...(note && { note }),
  };
}

/**
 * A constant value (LOCK006 too) and a release in the same function: a new token per acquisition,
 * kept in a local, and the release compares it. One edit for both findings.
 */
export function newToken(context: PlanContext, op: RedisOp): Owner | NoFix {
  const { document } = context;
  const acquire = document
    .allOps()
    .find(
      (each) =>
        each.kind === 'acquire' && each.keyText === op.keyText && each.call.node.startIndex < op.call.node.startIndex,
    );
  const fn = document.functionOf(op.call.node);
  if (!acquire?.value || !fn || !within(acquire.call.node, fn))
    return noFix(
      'constant-token',
      'the lock holds a constant and its acquire is in another function: give it a token per acquisition (LOCK006) first',
    );
  const token = tokenExpression(document, goVersion(context));
  if (isNoFix(token)) return token;
  const kept = keptInLocal(document, acquire, token.text);
  return isNoFix(kept)
    ? kept
    : { token: kept.token, acquire, edits: [...importEdits(document, token.imports), ...kept.edits] };
}

function releaseTitle(site: HelperSite, owner: Owner): string {
  const added = site.helper.addedPath ? `, adding ${site.helper.addedPath}` : '';
  const kept = owner.edits.length ? `, keeping the token in ${owner.token}` : '';
  return `Release with compare-and-delete of ${owner.token} (the lock helper's release)${kept}${added}`;
}

/** The side of `comparison` that is not `reply`, when `comparison` is an equality test. */
function equality(comparison: Node, reply: (node: Node) => boolean): { other: Node; equal: boolean } | undefined {
  if (comparison.type === 'method_invocation' && comparison.childForFieldName('name')?.text === 'equals') {
    const object = comparison.childForFieldName('object');
    const argument = comparison.childForFieldName('arguments')?.namedChild(0);
    if (object && argument) {
      if (reply(object)) return { other: argument, equal: true };
      if (reply(argument)) return { other: object, equal: true };
    }
    return undefined;
  }
  if (!/binary|comparison/.test(comparison.type)) return undefined;
  const operator =
    comparison.childForFieldName('operator')?.text ??
    comparison.children.find((child) => !!child && !child.isNamed && /^[=!]=+$/.test(child.type))?.text;
  if (!operator || !/^(==|===|!=|!==)$/.test(operator)) return undefined;
  const left = comparison.namedChild(0);
  const right = comparison.namedChild(comparison.namedChildCount - 1);
  if (!left || !right) return undefined;
  const equal = operator.startsWith('=');
  if (reply(left)) return { other: right, equal };
  if (reply(right)) return { other: left, equal };
  return undefined;
}

/** LOCK004: the GET-and-compare and the DEL become one compare-and-delete, where the compare was. */
function releaseCheckedDel(context: PlanContext, del: RedisOp, blocking: boolean): PlannedEdit | NoFix {
  const { document } = context;
  if (document.grammar === 'go')
    return noFix('go-condition', "Go's release returns (bool, error), which cannot stand where the compare was");
  const fn = document.functionOf(del.call.node);
  if (!fn) return noFix('layout', 'the release is outside a function');
  const delStatement = document.statementOf(del.call.node);
  if (!delStatement) return noFix('layout', 'the DEL is not a statement');
  // The DEL's reply: dropped, the body of Ruby's `del(key) if ...`, or returned as the release's answer.
  const delValue = document.valueOf(del.call.node);
  const delUse = classify(document, delValue);
  const inModifier = /^(if|unless)_modifier$/.test(delValue.parent?.type ?? '');
  const returned = /^return/.test(delStatement.type);
  let answer: TextChange | undefined;
  if (returned && delUse.kind === 'test' && delUse.test === 'success' && !NEGATIONS.has(delUse.node.type))
    answer = { start: delUse.node.startIndex, end: delUse.node.endIndex, text: TRUE[document.languageId] ?? 'true' };
  else if (returned && delUse.kind === 'value')
    answer = { start: delValue.startIndex, end: delValue.endIndex, text: '1' };
  else if (delUse.kind !== 'ignored' && !inModifier)
    return noFix('reply-used', "the DEL's reply is used in a way the helper's answer cannot stand in for");
  const gets = document
    .opsIn(fn)
    .filter(
      (op) => op.kind === 'get' && op.keyText === del.keyText && op.call.node.startIndex < del.call.node.startIndex,
    );
  // The GET's reply, directly or through the variable it went into (`holder = r.get(key)`), maybe decoded.
  const bound = new Map<string, RedisOp>();
  for (const get of gets) {
    const holder = document.valueOf(get.call.node).parent;
    const target = holder?.childForFieldName('left') ?? holder?.childForFieldName('name');
    if (target && /declarator|assignment/.test(holder!.type)) bound.set(target.text, get);
  }
  const isReply = (node: Node): boolean => {
    const bare = node.text.replace(/\.(decode|toString|to_s)\(\)$|\.(decode|to_s)$/, '');
    return (
      gets.some((get) => document.valueOf(get.call.node).text === bare || get.call.node.text === bare) ||
      bound.has(bare)
    );
  };
  // The test guarding the DEL: a condition holding it, or an early exit just before it.
  let found: { comparison: Node; other: Node; equal: boolean; conditional: Node } | undefined;
  for (let node = del.call.node.parent; node && node.id !== fn.id && !found; node = node.parent) {
    const condition = node.childForFieldName('condition');
    if (!condition || !document.syntax.conditionals.has(node.type)) continue;
    for (const candidate of [
      condition,
      ...condition.descendantsOfType(['binary_expression', 'comparison_operator', 'method_invocation', 'binary']),
    ]) {
      const test = candidate && equality(unwrapParens(candidate), isReply);
      if (test && test.equal) found = { comparison: unwrapParens(candidate), ...test, conditional: node };
      if (found) break;
    }
  }
  if (!found) {
    const block = delStatement.parent;
    const siblings = block ? document.statementsOf(block) : [];
    const previous = siblings[siblings.findIndex((each) => each.id === delStatement.id) - 1];
    const condition = previous?.childForFieldName('condition');
    const test = condition && equality(unwrapParens(condition), isReply);
    if (previous && test && !test.equal && /\b(return|raise|throw)\b/.test(previous.text))
      found = { comparison: unwrapParens(condition), ...test, conditional: previous };
  }
  if (!found)
    return noFix(
      'derived-compare',
      'the DEL is guarded by a test of a value computed from the GET (a parsed timestamp): no token to compare',
    );
  const site = helperSite(context, del, blocking);
  if (isNoFix(site)) return site;
  const call = siteCall(site, 'release', found.other.text);
  const language = document.languageId;
  const edits: TextChange[] = [];
  const { conditional, comparison } = found;
  const block = delStatement.parent;
  const onlyDel =
    inModifier || (!!block && within(delStatement, conditional) && document.statementsOf(block).length === 1);
  // The rest of the condition only looks at the reply (`holder is not None and ...`): the script checks that itself.
  const condition = conditional.childForFieldName('condition')!;
  const rest = (
    document.text.slice(condition.startIndex, comparison.startIndex) +
    document.text.slice(comparison.endIndex, condition.endIndex)
  )
    .replace(/\b(is|not|and|or|None|null|nil|undefined)\b|[()!=&|\s]/g, '')
    .replace(new RegExp([...bound.keys()].map((name) => name.replace(/\$/g, '\\$')).join('|') || '$^', 'g'), '');
  const elseBranch = conditional.namedChildren.some((child) => !!child && /else|alternative/.test(child.type));
  if (found.equal && onlyDel && !answer && !rest && !elseBranch && /^if/.test(conditional.type)) {
    const end = /;\s*$/.test(delStatement.text) ? ';' : '';
    edits.push({ start: conditional.startIndex, end: conditional.endIndex, text: `${call.code}${end}` });
  } else {
    const bracket = (text: string) =>
      /^await /.test(text) && comparison.parent?.type !== 'parenthesized_expression' ? `(${text})` : text;
    edits.push({
      start: comparison.startIndex,
      end: comparison.endIndex,
      text: found.equal ? bracket(call.code) : negated(language, call.code),
    });
    // The DEL goes (its answer, when it was returned, is now known: deleted); a block it leaves empty gets `pass` in Python.
    const deletion = answer ?? document.deleteStatement(delStatement);
    if (!deletion) return noFix('layout', 'the DEL shares its line with other code');
    edits.push(
      !answer && onlyDel && language === 'python'
        ? { ...deletion, text: `${document.indentAt(delStatement.startIndex)}pass\n` }
        : deletion,
    );
  }
  // The GET's variable goes with its statement when nothing the fix keeps reads it.
  const gone = (node: Node) => edits.some((edit) => node.startIndex >= edit.start && node.endIndex <= edit.end);
  for (const [name, get] of bound) {
    const statement = document.statementOf(get.call.node);
    if (!statement || !within(statement, fn)) continue;
    const kept = document.identifiers(fn, name).filter((node) => !within(node, statement) && !gone(node));
    const removal = kept.length ? undefined : document.deleteStatement(statement);
    if (removal) edits.push(removal);
  }
  const { imports, created, note } = helperChanges(document, site, call.importedNames);
  const added = site.helper.addedPath ? `, adding ${site.helper.addedPath}` : '';
  return {
    title: `Compare and delete in one step (the lock helper's release of ${found.other.text})${added}`,
    edits: [...imports, ...edits],
    created,
    ...(note && { note }),
  };
}

const unwrapParens = (node: Node): Node => {
  let current = node;
  while (current.type === 'parenthesized_expression' && current.namedChildCount === 1) current = current.namedChild(0)!;
  return current;
};

/** LOCK003 and LOCK004; `blocking`: a C# method that cannot await blocks on the helper's release (a suggestion). */
export function releaseFix(context: PlanContext, finding: Finding, blocking = false): PlannedEdit | NoFix {
  const del = context.document.opAt(finding.start);
  if (!del) return unreadCall(context.document.text, finding.start);
  return finding.code === 'LOCK004'
    ? releaseCheckedDel(context, del, blocking)
    : releaseBlindDel(context, del, blocking);
}

/** C#: where the fix cannot await the helper, the suggestion that blocks on it. */
export function blockingRelease(context: PlanContext, finding: Finding): PlannedEdit | NoFix {
  const fix = releaseFix(context, finding);
  if (!isNoFix(fix) || fix.code !== 'not-async' || context.languageId !== 'csharp') return noFix('not-needed', '');
  const suggestion = releaseFix(context, finding, true);
  return isNoFix(suggestion)
    ? suggestion
    : { ...suggestion, title: `${suggestion.title}, blocking on it (the method is not async)` };
}
