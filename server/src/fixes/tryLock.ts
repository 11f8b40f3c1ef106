// A try-lock stays a try-lock: the guarded section of code that skipped its work when the lock was
// busy (`if not r.setnx(...): return`) rewritten onto the lock helper's try variant, which tries
// once and never waits, keeping what the code did when busy. The helper's waiting lock (the other
// rewrite) is another suggestion: waiting instead of skipping changes what the code does.
import type { ClientInfo } from '../../../snippets/clients';
import { helperCall } from '../../../snippets/helperApi';
import type { Finding } from '../analysis';
import { identifierPattern, within } from '../analysis/tree';
import type { FixPlan } from '../analysis/fix';
import { applyEdits, type TextChange } from '../lockFix';
import { helperClientBlocker, helperImports, projectHelper } from './helper';
import type { FixDocument } from './document';
import { importEdits, unusedImports } from './imports';
import type { FixEnvironment, PlannedEdit } from './plan';
import { isNoFix, noFix, type NoFix } from './remedy';

const indented = (text: string, indent: string) => text.replace(/\n(?=.)/g, `\n${indent}`);

/** The try variant's code for a section, in the client's language; undefined for clients it is not written for. */
function render(
  client: ClientInfo,
  plan: FixPlan,
  ttl: string,
  unit: string,
): { code: string; names: string[] } | undefined {
  const { receiver, key } = plan;
  const busy = plan.busy ?? '';
  const body = plan.body ?? '';
  const block = (text: string) => `${unit}${indented(text, unit)}`;
  switch (client.extension) {
    case 'py':
      return {
        code: `${client.id === 'glide-python' ? 'async with' : 'with'} try_lock(${receiver}, ${key}, ttl_ms=${ttl}) as lease:\n${unit}if lease is None:\n${block(block(busy))}\n${body ? block(body) : `${unit}pass`}`,
        names: ['try_lock'],
      };
    case 'js':
      return {
        code: `const lease = await tryAcquire(${receiver}, ${key}, { ttlMs: ${ttl} });\nif (lease === null) {\n${block(busy)}\n}\ntry {\n${block(body)}\n} finally {\n${unit}await lease.release();\n}`,
        names: ['tryAcquire'],
      };
    case 'php':
      return {
        code: `$lease = Locksmith::tryAcquire(${receiver}, ${key}, ${ttl});\nif ($lease === null) {\n${block(busy)}\n}\ntry {\n${block(body)}\n} finally {\n${unit}$lease->release();\n}`,
        names: ['Locksmith'],
      };
    case 'rb':
      return {
        code: `lease = Locksmith.try_acquire(${receiver}, ${key}, ttl_ms: ${ttl})\nif lease.nil?\n${block(busy)}\nend\nbegin\n${block(body)}\nensure\n${unit}lease.release\nend`,
        names: ['Locksmith'],
      };
    case 'java': {
      // Released in `finally` as the code did, not by try-with-resources, whose close raises where
      // the release found the lease gone.
      const call = helperCall(client.id, 'tryAcquire', { client: receiver, key, ttlMs: ttl });
      return {
        code: `Locksmith.Lease lease = ${call.code};\nif (lease == null) {\n${block(busy)}\n}\ntry {\n${block(body)}\n} finally {\n${unit}lease.release();\n}`,
        names: call.importedNames,
      };
    }
    default:
      return undefined;
  }
}

/**
 * go-redis's try-lock: `ok, err := rdb.SetNX(ctx, key, value, ttl).Result()`, the checks that
 * leave when it failed, then `defer rdb.Del(ctx, key)` with the guarded code after it. Only the
 * two lock calls change (`lease, ok, err := locksmith.TryAcquire(ctx, rdb, key, ttl)` and
 * `defer lease.Release(ctx)`): the checks keep returning what they returned, busy or failed,
 * and the lease stays the code's own expression.
 */
function goTryLock(document: FixDocument, client: ClientInfo, plan: FixPlan): TextChange[] | NoFix {
  if (client.id !== 'go-redis') return noFix('language', `no try variant rewrite for ${client.library} yet`);
  if (plan.body) return noFix('layout', 'code runs between the acquire and the deferred release');
  const statementAt = (offset: number) => document.statementOf(document.root.descendantForIndex(offset)!);
  const first = statementAt(plan.start);
  const last = statementAt(plan.end - 1);
  const ops = document.allOps();
  const acquire = first && ops.find((op) => op.kind === 'acquire' && within(op.call.node, first));
  const release = last && ops.find((op) => op.kind === 'del' && within(op.call.node, last));
  const names = first?.childForFieldName('left')?.namedChildren;
  const [ctx, key, , ttl] = acquire?.call.args.map((arg) => arg.node.text) ?? [];
  const shaped =
    first?.type === 'short_var_declaration' &&
    first.childForFieldName('right')?.text === `${acquire?.call.node.text}.Result()` &&
    names?.length === 2 &&
    acquire?.call.nameNode.text === 'SetNX' &&
    acquire.call.args.length === 4 &&
    plan.ttlMs !== undefined &&
    last?.type === 'defer_statement' &&
    last.text === `defer ${release?.call.node.text}` &&
    release?.call.args.length === 2 &&
    release.call.args[1].node.text === key;
  if (!shaped)
    return noFix(
      'layout',
      'the try variant rewrites `ok, err := rdb.SetNX(...).Result()` ... `defer rdb.Del(ctx, key)`',
    );
  const taken = names.map((name) => name!.text).join(', ');
  const releaseCtx = release.call.args[0].node.text;
  return [
    ...(plan.unusedToken ? [{ ...plan.unusedToken, text: '' }] : []),
    {
      start: first.startIndex,
      end: first.endIndex,
      text: `lease, ${taken} := locksmith.TryAcquire(${ctx}, ${plan.receiver}, ${key}, ${ttl})`,
    },
    { start: last.startIndex, end: last.endIndex, text: `defer lease.Release(${releaseCtx})` },
  ];
}

/** The try variant in place of the guarded section of a try-lock, as a suggestion. */
export function tryLockRewrite(
  document: FixDocument,
  client: ClientInfo,
  finding: Finding,
  env: FixEnvironment,
): PlannedEdit | NoFix {
  const plan = finding.fix;
  if (!plan || plan.busy === undefined) return noFix('not-try-lock', 'the code does not skip its work when busy');
  const text = document.text;
  const fn = document.functionOf(document.root.descendantForIndex(plan.start)!);
  if (fn && identifierPattern(client.extension === 'php' ? '$lease' : 'lease').test(fn.text))
    return noFix('layout', 'the function has its own `lease`');
  const connection = helperClientBlocker(client.id, document.text, plan.receiver, 'acquire');
  if (connection) return connection;
  let edits: TextChange[];
  let names: string[];
  if (client.extension === 'go') {
    const go = goTryLock(document, client, plan);
    if (isNoFix(go)) return go;
    // An import only the replaced value used (`uuid` for the token) goes: Go does not compile with it.
    const unused = unusedImports('go', text, applyEdits(text, go)).map((line) => ({ ...line, text: '' }));
    [edits, names] = [[...unused, ...go], ['locksmith']];
  } else {
    const code = render(client, plan, plan.ttlMs ?? '30000', document.indentUnit());
    if (!code) return noFix('language', `no try variant rewrite for ${client.library} yet`);
    edits = [
      ...(plan.unusedToken ? [{ ...plan.unusedToken, text: '' }] : []),
      { start: plan.start, end: plan.end, text: indented(code.code, plan.indent) },
    ];
    names = code.names;
  }
  const helper = projectHelper(client, { ...env, text, manifests: env.manifests, canCreateFiles: env.canCreateFiles });
  if (isNoFix(helper)) return helper;
  const imports = importEdits(document, helperImports(helper, names));
  const added = helper.addedPath ? `, adding ${helper.addedPath}` : '';
  const leased = plan.ttlMs === undefined ? ' with a 30 s lease the lock did not have' : '';
  return {
    title: `Replace with the lock helper's try variant (one try, skips when busy as before)${leased}${added}`,
    edits: [...imports, ...edits],
    created: helper.created ? [helper.created] : [],
    ...(helper.created && helper.note && { note: helper.note }),
  };
}
