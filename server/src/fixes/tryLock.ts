// A try-lock stays a try-lock: the guarded section of code that skipped its work when the lock was
// busy (`if not r.setnx(...): return`) rewritten onto the lock helper's try variant, which tries
// once and never waits, keeping what the code did when busy. The helper's waiting lock (the other
// rewrite) is another suggestion: waiting instead of skipping changes what the code does.
import type { ClientInfo } from '../../../snippets/clients';
import { helperCall } from '../../../snippets/helperApi';
import type { Finding } from '../analysis';
import { identifierPattern } from '../analysis/tree';
import type { FixPlan } from '../analysis/fix';
import type { TextChange } from '../lockFix';
import { helperImports, projectHelper } from './helper';
import type { FixDocument } from './document';
import { importEdits } from './imports';
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
      // Spring only (Jedis and Lettuce get the waiting rewrite): released in `finally` as the code
      // did, not by try-with-resources, whose close raises where the release found the lease gone.
      if (client.id !== 'spring-data-redis') return undefined;
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
  const unit = document.indentUnit();
  const lease = plan.ttlMs ?? '30000';
  const code = render(client, plan, lease, unit);
  if (!code) return noFix('language', `no try variant rewrite for ${client.library} yet`);
  const helper = projectHelper(client, { ...env, text, manifests: env.manifests, canCreateFiles: env.canCreateFiles });
  if (isNoFix(helper)) return helper;
  const edits: TextChange[] = [
    ...(plan.unusedToken ? [{ ...plan.unusedToken, text: '' }] : []),
    { start: plan.start, end: plan.end, text: indented(code.code, plan.indent) },
  ];
  const imports = importEdits(document, helperImports(helper, code.names));
  const added = helper.addedPath ? `, adding ${helper.addedPath}` : '';
  const leased = plan.ttlMs === undefined ? ' with a 30 s lease the lock did not have' : '';
  return {
    title: `Replace with the lock helper's try variant (one try, skips when busy as before)${leased}${added}`,
    edits: [...imports, ...edits],
    created: helper.created ? [helper.created] : [],
    ...(helper.created && helper.note && { note: helper.note }),
  };
}
