// LOCK009's fix: the renewal goes through the lock helper's compare-and-extend (it no longer
// extends a lease another holder now has), and a lost lease is reported the way the code around
// it reports failure: a renewal loop stops (`break`; a Go goroutine returns), a function that
// answers true/false answers false, a Go function returns an error. Where nothing around the
// renewal reports failure, raising an error is a change of behaviour: a suggestion.
import type { Node } from '@vscode/tree-sitter-wasm';
import type { Finding } from '../analysis';
import type { RedisOp } from '../analysis/ops';
import { within } from '../analysis/tree';
import { durationMs, timeUnitMs } from '../analysis/values';
import type { TextChange } from '../lockFix';
import type { FixDocument } from './document';
import { importEdits } from './imports';
import { JS_LANGUAGES, ownerAt } from './owner';
import type { PlanContext, PlannedEdit } from './plan';
import { helperChanges, helperSite, siteCall } from './release';
import { isNoFix, noFix, unreadCall, type NoFix } from './remedy';

/** The renewal's lease in ms, as an expression of the code (`30000`, `ttl * 1000`, `ttl.Milliseconds()`). */
function leaseMs(document: FixDocument, op: RedisOp, clientId: string): string | NoFix {
  const key = op.key;
  const after = key ? op.call.args.filter((arg) => arg.node.startIndex > key.endIndex) : [];
  if (clientId === 'spring-data-redis') return springMs(after.map((arg) => arg.node.text));
  if (after.length !== 1 && document.languageId !== 'java')
    return noFix('lease-unread', 'the renewal gives no single lease after the key');
  const text = after[0]?.node.text ?? '';
  const method = op.call.nameNode.text;
  if (/^(expireat|pexpireat)$/i.test(method)) return noFix('absolute-expiry', 'the renewal sets an absolute time');
  if (document.grammar === 'go') {
    const ms = durationMs(text);
    return Number.isFinite(ms) ? String(ms) : `int((${text}).Milliseconds())`;
  }
  if (document.languageId === 'csharp') {
    const ms = durationMs(text);
    return Number.isFinite(ms) ? String(ms) : `(long)(${text}).TotalMilliseconds`;
  }
  if (after.length !== 1) return noFix('lease-unread', 'the renewal gives its lease in a form the fix does not read');
  if (/^p/i.test(method)) return text;
  return /^\d+$/.test(text) ? String(Number(text) * 1000) : `${text} * 1000`;
}

/**
 * Spring's template.expire lease in ms for the helper's extendLock (a long): `(30, TimeUnit.SECONDS)`
 * or `(Duration.ofSeconds(30))`, computed when written as literals, else converted where it runs
 * (`TimeUnit.SECONDS.toMillis(ttl)`, `lease.toMillis()`).
 */
function springMs(args: string[]): string | NoFix {
  const [amount, unit] = args;
  if (args.length === 2 && /^(?:TimeUnit\.)?[A-Z]+$/.test(unit)) {
    const ms = timeUnitMs(amount, unit);
    return Number.isFinite(ms) ? String(ms) : `${unit}.toMillis(${amount})`;
  }
  if (args.length !== 1) return noFix('lease-unread', 'the renewal gives its lease in a form the fix does not read');
  const ms = durationMs(amount);
  if (Number.isFinite(ms)) return String(ms);
  return `${/^[\w.]+(\(\w*\))?$/.test(amount) ? amount : `(${amount})`}.toMillis()`;
}

/** How the code around a renewal reports that it failed, if it does. */
interface Report {
  kind: 'break' | 'return' | 'raise';
  /** The statement that reports it. */
  text: string;
}

const FALSE: Record<string, string> = { python: 'False' };

/** The statements between `statement` and the function: is it inside a loop of that function? */
function inLoop(document: FixDocument, statement: Node, fn: Node): Node | undefined {
  for (let node = statement.parent; node && node.id !== fn.id; node = node.parent)
    if (
      document.syntax.loops.has(node.type) ||
      /^(loop|while|until)$/.test(node.childForFieldName('method')?.text ?? '')
    )
      return node;
  return undefined;
}

/** Go: the zero values of a function's results before its final error, or undefined when one is not simple. */
function goZeros(fn: Node): string[] | undefined {
  const result = fn.childForFieldName('result');
  if (!result) return [];
  const types =
    result.type === 'parameter_list'
      ? result.namedChildren.map((each) => each?.childForFieldName('type')?.text ?? each?.text ?? '')
      : [result.text];
  if (types.at(-1) !== 'error') return undefined;
  const ZERO: Record<string, string> = { bool: 'false', string: '""' };
  const zeros: string[] = [];
  for (const type of types.slice(0, -1)) {
    const zero = ZERO[type] ?? (/^u?int\d*$|^float\d+$/.test(type) ? '0' : undefined);
    if (zero === undefined) return undefined;
    zeros.push(zero);
  }
  return zeros;
}

function reportOf(document: FixDocument, statement: Node, fn: Node, key: string): Report | undefined {
  const language = document.languageId;
  const loop = inLoop(document, statement, fn);
  if (document.grammar === 'go') {
    const zeros = goZeros(fn);
    if (loop && !fn.childForFieldName('result')) return { kind: 'return', text: 'return' };
    if (zeros)
      return {
        kind: 'return',
        text: `return ${[...zeros, `errors.New("the lease on the lock was lost")`].join(', ')}`,
      };
    return undefined;
  }
  if (loop) return { kind: 'break', text: 'break' };
  const returns = fn
    .descendantsOfType(['return_statement', 'return'])
    .filter((each): each is Node => !!each && document.functionOf(each)?.id === fn.id);
  if (returns.some((each) => /\b(false|False|true|True)\b/.test(each.text)))
    return { kind: 'return', text: `return ${FALSE[language] ?? 'false'}` };
  // Nothing reports a failure here: raising one is the suggestion.
  const message = `the lease on ${key} was lost`;
  switch (language) {
    case 'python':
      return { kind: 'raise', text: `raise RuntimeError(${JSON.stringify(message)})` };
    case 'ruby':
      return { kind: 'raise', text: `raise ${JSON.stringify(message)}` };
    case 'java':
      return { kind: 'raise', text: `throw new IllegalStateException(${JSON.stringify(message)})` };
    case 'csharp':
      return { kind: 'raise', text: `throw new InvalidOperationException(${JSON.stringify(message)})` };
    case 'php':
      return { kind: 'raise', text: `throw new \\RuntimeException(${JSON.stringify(message)})` };
    default:
      return JS_LANGUAGES.has(language)
        ? { kind: 'raise', text: `throw new Error(${JSON.stringify(message)})` }
        : undefined;
  }
}

/** `if the call says the lease is gone: report`, in the language's own form. */
function checked(document: FixDocument, call: string, report: string, indent: string): string {
  const unit = document.indentUnit();
  const language = document.languageId;
  if (language === 'python') return `if not ${call}:\n${indent}${unit}${report}`;
  if (language === 'ruby') return `${report} unless ${call}`;
  const negated = /^await /.test(call) ? `!(${call})` : `!${call}`;
  const end = language === 'go' ? '' : ';';
  return `if (${negated}) {\n${indent}${unit}${report}${end}\n${indent}}`;
}

function renewal(context: PlanContext, finding: Finding, kind: 'fix' | 'suggestion'): PlannedEdit | NoFix {
  const { document } = context;
  const op = document.opAt(finding.start);
  if (!op) return unreadCall(document.text, finding.start);
  if (op.kind !== 'expire')
    return noFix('script-renewal', 'the renewal runs a script of its own: check its reply by hand');
  const fn = document.functionOf(op.call.node);
  const statement = document.statementOf(op.call.node);
  if (!fn || !statement) return noFix('layout', 'the renewal is not a statement in a function');
  const site = helperSite(context, op);
  if (isNoFix(site)) return site;
  const owner = ownerAt(document, op);
  if (isNoFix(owner)) return owner;
  const ms = leaseMs(document, op, site.helper.client.id);
  if (isNoFix(ms)) return ms;
  const report = reportOf(document, statement, fn, site.key);
  if (!report) return noFix('failure-path', 'nothing around the renewal says how a failure is reported');
  if ((report.kind === 'raise') !== (kind === 'suggestion'))
    return noFix('failure-path', 'nothing around the renewal reports a failure: raising one is a suggestion');
  const call = siteCall(site, 'extend', owner.token, ms);
  const indent = document.indentAt(statement.startIndex);
  let edits: TextChange[];
  const text = document.text.slice(statement.startIndex, statement.endIndex);
  const callText = document.text.slice(op.call.node.startIndex, op.call.node.endIndex);
  if (document.grammar === 'go') {
    // `rdb.PExpire(ctx, key, ttl)` or `if err := rdb.PExpire(...).Err(); err != nil {`: errors stay as they were handled.
    const initializer = /^if (\w+) := /.exec(text);
    if (initializer && within(op.call.node, statement.childForFieldName('initializer') ?? statement)) {
      const consequence = statement.childForFieldName('consequence');
      if (!consequence) return noFix('layout', 'the renewal check has no body');
      edits = [
        {
          start: statement.startIndex,
          end: consequence.startIndex,
          text: `if ok, ${initializer[1]} := ${call.code}; ${initializer[1]} != nil `,
        },
        {
          start: consequence.endIndex,
          end: consequence.endIndex,
          text: ` else if !ok {\n${indent}${document.indentUnit()}${report.text}\n${indent}}`,
        },
      ];
    } else if (text === callText || text === `${callText}.Err()`) {
      edits = [
        {
          start: statement.startIndex,
          end: statement.endIndex,
          text: `if ok, err := ${call.code}; err == nil && !ok {\n${indent}${document.indentUnit()}${report.text}\n${indent}}`,
        },
      ];
    } else return noFix('reply-used', 'the renewal is part of a larger statement');
  } else {
    const value = document.valueOf(op.call.node);
    if (value.parent?.id !== statement.id && value.id !== statement.id)
      return noFix('reply-used', 'the renewal is part of a larger statement');
    edits = [
      { start: statement.startIndex, end: statement.endIndex, text: checked(document, call.code, report.text, indent) },
    ];
  }
  const { imports, created, note } = helperChanges(document, site, call.importedNames);
  const errors =
    document.grammar === 'go' && report.text.includes('errors.New') ? importEdits(document, ['import "errors"']) : [];
  const added = site.helper.addedPath ? `, adding ${site.helper.addedPath}` : '';
  const what = report.kind === 'break' ? 'stop renewing' : report.kind === 'return' ? report.text : 'raise an error';
  return {
    title: `Renew with compare-and-extend (the lock helper's extend of ${owner.token}); when the lease is lost, ${what}${added}`,
    edits: [...imports, ...errors, ...owner.edits, ...edits],
    created,
    ...(note && { note }),
  };
}

/** LOCK009's fix: where the code around the renewal has a way to report failure. */
export const renewalFix = (context: PlanContext, finding: Finding) => renewal(context, finding, 'fix');
/** LOCK009's suggestion: where it has none, raising an error. */
export const renewalSuggestion = (context: PlanContext, finding: Finding) => renewal(context, finding, 'suggestion');
