// LOCK001's fix and LOCK002's suggestion: the acquire takes its lease in the same command. For
// LOCK001 the lease is the one the separate EXPIRE gave, and the EXPIRE goes; for LOCK002 it is a
// 30 s lease where the lock had none (a change of behaviour: a suggestion). The call stays the
// user's, on the user's client, in the user's library; what the tests of its reply check stays
// the same (replies.ts).
import type { Node } from '@vscode/tree-sitter-wasm';
import type { RedisOp } from '../analysis/ops';
import { words } from '../analysis/syntax';
import type { TextChange } from '../lockFix';
import { DIALECTS, defaultLease, dialectOf, importLineOf, setWithLease, type DialectId, type Lease } from './dialects';
import type { FixDocument } from './document';
import { importEdits } from './imports';
import { joinedImport } from './release';
import { isNoFix, noFix, type NoFix } from './remedy';
import { replyEdits } from './replies';
import type { PlanContext, PlannedEdit } from './plan';

/** A pipeline or transaction: its replies come with EXEC, not from the call. */
const TRANSACTION = /pipe|multi|\btx\b|trans|batch/i;
const CHAINED_TRANSACTION = /\.(multi|pipeline|txpipeline|pipelined)\s*\(/i;

/** Method names and commands that set a relative expiry, seconds or milliseconds. */
const RELATIVE_EXPIRE = /^(expire|pexpire|keyexpire|keyexpireasync)$/i;

function transactionOf(document: FixDocument, op: RedisOp): NoFix | undefined {
  const receiver = op.call.receiver?.text ?? '';
  const scope = document.functionOf(op.call.node) ?? document.root;
  // `Transaction t = jedis.multi(); t.setnx(...)`: a MULTI opened before it in the function.
  const opened = document
    .opsIn(scope)
    .some((other) => other.kind === 'multi' && other.call.node.endIndex <= op.call.node.startIndex);
  if (TRANSACTION.test(receiver) || CHAINED_TRANSACTION.test(receiver) || opened)
    return noFix(
      'transaction',
      'the lock is taken inside MULTI/pipeline, whose replies come with EXEC: take it with SET NX PX before the transaction',
    );
  return undefined;
}

/** The expiry command's name: the method, or a generic call's command string. */
function expireName(op: RedisOp): string {
  const method = op.call.nameNode.text;
  return /^(do|execute_command|call|send_command)$/i.test(method)
    ? (op.call.args[0]?.value.text.replace(/['"]/g, '') ?? method)
    : method;
}

/** The lease an EXPIRE gives, in the terms the dialect's SET takes it. */
function leaseOf(dialect: DialectId, expire: RedisOp): Lease | NoFix {
  const name = expireName(expire);
  if (!RELATIVE_EXPIRE.test(name))
    return noFix('absolute-expiry', `${name} sets an absolute expiry time: give the lock a relative lease instead`);
  const key = expire.key;
  const args = expire.call.args;
  const after = key ? args.filter((arg) => arg.node.startIndex > key.endIndex) : [];
  if (!after.length) return noFix('lease-unread', 'the EXPIRE gives no lease after the key');
  const text = after.map((arg) => arg.node.text).join(', ');
  if (dialect === 'spring' || dialect === 'go-redis' || dialect === 'stackexchange' || dialect === 'glide-go') {
    if (dialect === 'stackexchange' && /DateTime/.test(text))
      return noFix('absolute-expiry', 'KeyExpire is given a DateTime (an absolute time)');
    return { kind: 'duration', text };
  }
  if (after.length > 1) return noFix('expire-options', `the EXPIRE has options (${text}) that SET does not take`);
  return { kind: 'amount', unit: /^p/i.test(name) ? 'ms' : 's', text };
}

/** The statement the EXPIRE is, when it can go whole: a call statement, an assignment to `_`/`err`, Go's `if err := ...; err != nil {}`. */
function removableStatement(document: FixDocument, expire: RedisOp, acquire: RedisOp): Node | NoFix {
  const statement = document.statementOf(expire.call.node);
  const none = noFix(
    'expire-entangled',
    'the EXPIRE is part of a larger statement (its reply is used): remove it by hand after taking the lease in the SET',
  );
  if (!statement || statement.startIndex <= acquire.call.node.startIndex) return none;
  const others = document.opsIn(statement).filter((op) => op.call.node.id !== expire.call.node.id);
  if (others.length) return none;
  const value = document.valueOf(expire.call.node);
  const direct = value.id === statement.id || value.parent?.id === statement.id;
  if (direct && /expression_statement|^call$/.test(statement.type)) return statement;
  if (statement.type === 'expression_statement' && /(\.|->)(Err|Result)\(\)$/.test(statement.text.replace(/;$/, '')))
    return statement;
  // `_, err = conn.Do("EXPIRE", ...)`, `err = rdb.Expire(...).Err()`: the error of a call that goes.
  if (/assignment_statement/.test(statement.type) && /^(?:_|err)(?:\s*,\s*(?:_|err))*\s*=[^=]/.test(statement.text))
    return statement;
  if (statement.type === 'if_statement' && document.grammar === 'go') {
    const initializer = statement.childForFieldName('initializer');
    const condition = statement.childForFieldName('condition')?.text.replace(/\s+/g, '') ?? '';
    if (initializer && initializer.startIndex <= expire.call.node.startIndex && /^err!=nil$/.test(condition))
      return statement;
  }
  return none;
}

/** The edits that remove the EXPIRE statement (with the comments above it); a block it leaves empty gets `pass` in Python. */
function removeStatement(document: FixDocument, statement: Node): TextChange[] | NoFix {
  const deletion = document.deleteStatement(statement);
  if (!deletion) return noFix('layout', 'the EXPIRE shares its line with other code');
  const block = statement.parent;
  const alone = block && document.statementsOf(block).length === 1;
  if (alone && document.grammar === 'python') {
    const indent = document.indentAt(statement.startIndex);
    return [{ ...deletion, text: `${indent}pass\n` }];
  }
  return [deletion];
}

/** `call`'s text with its method name and argument list replaced (Ruby's list may have no parentheses). */
function callWith(document: FixDocument, call: Node, nameNode: Node, method: string, args: string): string {
  const list = argumentList(call);
  const text = document.text;
  if (!list) return text.slice(call.startIndex, call.endIndex);
  const inner = text[list.startIndex] === '(' ? `(${args})` : args;
  return (
    text.slice(call.startIndex, nameNode.startIndex) +
    method +
    text.slice(nameNode.endIndex, list.startIndex) +
    inner +
    text.slice(list.endIndex, call.endIndex)
  );
}

const argumentList = (call: Node): Node | null =>
  call.childForFieldName('arguments') ?? call.namedChildren.find((child) => child?.type === 'argument_list') ?? null;

/** The key and value as written, and for go-redis the context argument. */
function callParts(op: RedisOp): { key: string; value: string; context?: string } | NoFix {
  if (!op.key || !op.value) return noFix('lease-unread', 'the acquire has no key and value to keep');
  const args = op.call.args;
  const keyArg = args.find((arg) => arg.value.id === op.key!.id || arg.node.id === op.key!.id);
  const valueArg = args.find((arg) => arg.value.id === op.value!.id || arg.node.id === op.value!.id);
  const first = args[0]?.node;
  const context = first && first.startIndex < op.key.startIndex && !/^"/.test(first.text) ? first.text : undefined;
  return { key: keyArg?.node.text ?? op.key.text, value: valueArg?.node.text ?? op.value.text, context };
}

/** The words of GLIDE's NX option in each binding (`conditional_set=ConditionalChange.ONLY_IF_DOES_NOT_EXIST`, ...). */
const GLIDE_NX_WORDS = new Set([
  'conditional_set',
  'conditionalchange',
  'only_if_does_not_exist',
  'conditionalset',
  'onlyifdoesnotexist',
  'setoptions',
  'builder',
  'build',
  'conditionalsetonlyifnotexist',
  'options',
  'newsetoptions',
  'setonlyifdoesnotexist',
]);

/** An acquire whose options are only the NX flag (`set(k, v, nx=True)`, `StringSet(k, v, null, When.NotExists)`). */
function onlyNx(op: RedisOp): boolean {
  const value = op.value;
  if (!value) return false;
  const options = op.call.args.filter((arg) => arg.node.startIndex > value.endIndex);
  return options.every((arg) =>
    words(arg.node).every(
      (word) =>
        /^(nx|notexists|when|true|null|0|set|setargs|setparams|setparams\(\))$/.test(word) || GLIDE_NX_WORDS.has(word),
    ),
  );
}

/**
 * The SET with `lease` in place of the acquire `op`, and the edits that keep its reply's tests:
 * the shared part of LOCK001's fix and LOCK002's suggestion.
 */
function setEdits(context: PlanContext, op: RedisOp, lease: Lease, dialect: DialectId): TextChange[] | NoFix {
  const { document } = context;
  const parts = callParts(op);
  if (isNoFix(parts)) return parts;
  const method = op.call.nameNode.text;
  const value = op.value!;
  const options = op.call.args.filter((arg) => arg.node.startIndex > value.endIndex).map((arg) => arg.node.text);
  const set = setWithLease(dialect, { ...parts, lease, method, options });
  if (isNoFix(set)) return set;
  // A SET NX that only gains a lease replies as before; a SETNX becoming a SET replies differently.
  const command = /^do$/i.test(method) ? (op.call.args[0]?.value.text.replace(/['"]/g, '') ?? '') : method;
  const replacement = callWith(document, op.call.node, op.call.nameNode, set.method, set.args);
  if (/^set(?:withoptions)?$/i.test(command))
    return [{ start: op.call.node.startIndex, end: op.call.node.endIndex, text: replacement }];
  if (dialect === 'redigo') return redigoEdits(document, op, set.args);
  return replyEdits(document, op.call.node, replacement, DIALECTS[dialect]);
}

/**
 * redigo: `ok, err := redis.Bool(conn.Do("SETNX", k, v))` (or Int) becomes the SET and a test of
 * its reply (`ok := reply != nil`): SET NX replies nil when the lock is busy, which redis.Bool and
 * redis.Int turn into the ErrNil error.
 */
function redigoEdits(document: FixDocument, op: RedisOp, args: string): TextChange[] | NoFix {
  const call = op.call.node;
  const list = argumentList(call)!;
  const doCall = document.text.slice(call.startIndex, list.startIndex) + `(${args})`;
  const wrapper = call.parent?.parent;
  const statement = document.statementOf(call);
  if (
    statement &&
    document.valueOf(call).id === statement.namedChild(0)?.id &&
    statement.type === 'expression_statement'
  )
    return [{ start: call.startIndex, end: call.endIndex, text: doCall }];
  const convert =
    wrapper?.type === 'call_expression'
      ? /^(\w+)\.(Bool|Int|Int64)$/.exec(wrapper.childForFieldName('function')?.text ?? '')
      : null;
  const declaration = wrapper?.parent?.parent;
  const left = declaration?.childForFieldName('left');
  const names = left?.namedChildren.map((child) => child?.text ?? '') ?? [];
  if (
    !convert ||
    !statement ||
    declaration?.id !== statement.id ||
    statement.type !== 'short_var_declaration' ||
    names.length !== 2
  )
    return noFix(
      'reply-used',
      "redigo's reply is used in a way the fix cannot keep (it becomes nil when the lock is busy)",
    );
  const [result, error] = names;
  const fn = document.functionOf(call) ?? document.root;
  const replyName = ['reply', 'setReply', 'lockReply'].find((name) => !document.identifiers(fn, name).length);
  if (!replyName) return noFix('reply-used', 'no free name for the reply');
  const indent = document.indentAt(statement.startIndex);
  const edits: TextChange[] = [];
  if (convert[2] === 'Bool') {
    edits.push({
      start: statement.startIndex,
      end: statement.endIndex,
      text: `${replyName}, ${error} := ${doCall}\n${indent}${result} := ${replyName} != nil`,
    });
    return edits;
  }
  // Int: every use of the count must be a test of it (`n == 1`), which the bool then answers.
  const uses = document.identifiers(fn, result).filter((node) => node.startIndex > statement.endIndex);
  for (const use of uses) {
    const parent = use.parent;
    const operator = parent?.childForFieldName('operator')?.text;
    const other = parent?.childForFieldName(parent.childForFieldName('left')?.id === use.id ? 'right' : 'left')?.text;
    const taken =
      operator === '==' && other === '1'
        ? true
        : operator === '!=' && other === '0'
          ? true
          : operator === '>' && other === '0'
            ? true
            : operator === '==' && other === '0'
              ? false
              : operator === '!=' && other === '1'
                ? false
                : undefined;
    if (!parent || taken === undefined)
      return noFix('reply-used', `${result} is used as a number, which SET NX does not reply`);
    edits.push({ start: parent.startIndex, end: parent.endIndex, text: taken ? result : `!${result}` });
  }
  edits.push({
    start: statement.startIndex,
    end: statement.endIndex,
    text: `${replyName}, ${error} := ${doCall}\n${indent}${result} := ${replyName} != nil`,
  });
  return edits;
}

/** The library an acquire outside a transaction is written for. */
function acquireDialect(context: PlanContext, op: RedisOp): DialectId | NoFix {
  const { document } = context;
  return transactionOf(document, op) ?? dialectOf(context.languageId, document.text, context.manifests, op);
}

/** LOCK001: the EXPIRE's lease moves into the acquire, and the EXPIRE goes. */
export function leaseInAcquire(context: PlanContext, op: RedisOp): PlannedEdit | NoFix {
  const { document } = context;
  const dialect = acquireDialect(context, op);
  if (isNoFix(dialect)) return dialect;
  const scope = document.functionOf(op.call.node) ?? document.root;
  const expire = document
    .opsIn(scope)
    .find(
      (other) =>
        other.kind === 'expire' &&
        other.call.node.startIndex > op.call.node.endIndex &&
        other.keyText !== undefined &&
        other.keyText === op.keyText,
    );
  if (!expire)
    return noFix(
      'expire-elsewhere',
      'the EXPIRE is written with another key expression than the acquire, or elsewhere',
    );
  const lease = leaseOf(dialect, expire);
  if (isNoFix(lease)) return lease;
  const statement = removableStatement(document, expire, op);
  if (isNoFix(statement)) return statement;
  const removal = removeStatement(document, statement);
  if (isNoFix(removal)) return removal;
  const set = setEdits(context, op, lease, dialect);
  if (isNoFix(set)) return set;
  const imports = dialectImports(document, dialect, []);
  return {
    title: `Take the lock and its lease in one command (SET NX ${lease.kind === 'amount' && lease.unit === 'ms' ? 'PX' : 'EX'}), without the EXPIRE`,
    edits: [...imports, ...set, ...removal],
  };
}

/** LOCK002: a 30 s lease where the lock had none (a suggestion: the lock now expires). */
export function addLease(context: PlanContext, op: RedisOp): PlannedEdit | NoFix {
  const dialect = acquireDialect(context, op);
  if (isNoFix(dialect)) return dialect;
  const added = leaseEdits(context, op, dialect, defaultLease(dialect));
  return isNoFix(added)
    ? added
    : { ...added, title: 'Add a 30 s lease (the lock never expired before: work longer than that loses it)' };
}

function leaseEdits(
  context: PlanContext,
  op: RedisOp,
  dialect: DialectId,
  { lease, imports }: { lease: Lease; imports: string[] },
): PlannedEdit | NoFix {
  if (!onlyNx(op)) return noFix('set-options', 'the acquire has options besides NX that the fix would have to keep');
  const set = setEdits(context, op, lease, dialect);
  if (isNoFix(set)) return set;
  return { title: '', edits: [...dialectImports(context.document, dialect, imports), ...set] };
}

/**
 * `lines` and the import the dialect's SET needs; Python's and JavaScript's join the file's import
 * of the same module (`from glide import GlideClient, ExpirySet, ExpiryType`).
 */
function dialectImports(document: FixDocument, dialect: DialectId, lines: string[]): TextChange[] {
  const line = importLineOf(dialect, document.text);
  const module = line && /^from (\S+) import |(?:from |require\()'([^']+)'/.exec(line);
  const joined = line && module ? joinedImport(document, module[1] ?? module[2], [line]) : undefined;
  return [...importEdits(document, [...lines, ...(line && !joined ? [line] : [])]), ...(joined ?? [])];
}

/** Clock readings and the unit of the number they give: `time.time() + 10` is 10 s from now. */
const CLOCKS: [RegExp, 's' | 'ms'][] = [
  [/^(?:time\.time\(\)|time\(\)|microtime\(true\)|Time\.now\.to_[if]|time\.Now\(\)\.Unix\(\))$/, 's'],
  [/^(?:Date\.now\(\)|System\.currentTimeMillis\(\)|time\.Now\(\)\.UnixMilli\(\))$/, 'ms'],
];

/**
 * The timeout a timestamp value adds to the clock (`time.time() + timeout + 1` -> `timeout + 1`
 * seconds), read from the value or the assignment of the variable it is; undefined otherwise.
 */
function timestampTimeout(document: FixDocument, op: RedisOp): Extract<Lease, { kind: 'amount' }> | undefined {
  let text = op.value?.text ?? '';
  const fn = document.functionOf(op.call.node);
  if (/^\$?\w+$/.test(text) && fn) {
    const name = text.replace(/\$/g, '\\$');
    const assigned = new RegExp(`(?:^|[\\s;])${name}\\s*:?=\\s*([^\\n;]+)`).exec(
      document.text.slice(fn.startIndex, op.call.node.startIndex),
    );
    if (assigned) text = assigned[1].trim();
  }
  const sum = /^(?:String(?:\.valueOf)?\()?\s*(.+?)\s*\+\s*(.+?)\s*\)?$/.exec(text.replace(/^\(|\)$/g, ''));
  if (!sum) return undefined;
  const unit = CLOCKS.find(([clock]) => clock.test(sum[1].replace(/\s+/g, '')))?.[1];
  return unit && /^[\w$.>@ +*_-]+$/.test(sum[2]) ? { kind: 'amount', unit, text: sum[2] } : undefined;
}

/**
 * LOCK005 (a timestamp lock): a lease on its acquire, so that Redis expires a stale lock and the
 * takeover code (GET, compare with the clock, GETSET) only meets locks written before. A change of
 * algorithm: a suggestion. The lease is the timestamp's timeout where the code says it, else 30 s.
 */
export function timestampLease(context: PlanContext, op: RedisOp): PlannedEdit | NoFix {
  // On the GETSET the takeover stays whatever the acquire does: only the timestamp acquire gets it.
  const acquire = op.kind === 'acquire' ? op : undefined;
  if (!acquire || acquire.hasExpiry)
    return noFix('changes-behaviour', 'a GETSET takeover is another algorithm than a lease: convert the lock by hand');
  const dialect = acquireDialect(context, acquire);
  if (isNoFix(dialect)) return dialect;
  const timeout = timestampTimeout(context.document, acquire);
  const lease =
    timeout && (dialect === 'go-redis' || dialect === 'stackexchange' || dialect === 'spring' || dialect === 'glide-go')
      ? undefined
      : timeout;
  const added = leaseEdits(context, acquire, dialect, lease ? { lease, imports: [] } : defaultLease(dialect));
  if (isNoFix(added)) return added;
  const how = lease ? `the timestamp's timeout, ${lease.text} ${lease.unit}` : '30 s';
  return {
    ...added,
    title: `Let Redis expire the lock: a lease of ${how} on the acquire (the timestamp takeover then only meets locks written before)`,
  };
}
