// The "Replace with Locksmith's vetted lock" fix: the guard snippet of the client the file uses,
// rendered with the user's key expression, lease and guarded statements. No LSP types here.
import { readFileSync } from 'node:fs';
import type { Pack } from '../../pack/pack';
import type { FixPlan } from './analysis/fix';
import type { ClientInfo } from '../../snippets/clients';
import { rankClients, usesClient, type Manifest } from '../../snippets/infer';
import { renderCode } from '../../snippets/render';

/** A file's text, or undefined when there is none (or it cannot be read). */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The client the fix is written for: the file's import, else a manifest dependency. None when
 * neither names one (Spring's RedisTemplate, a wrapper): code for a guessed client would not compile.
 */
export function fixClient(languageId: string, source: string, manifests: Manifest[]): ClientInfo | undefined {
  const best = rankClients({ languageId, source, manifests })[0];
  return best?.languageIds.includes(languageId) && usesClient(best, source, manifests) ? best : undefined;
}

/** The replacement text, indented to sit where the replaced statements were (the embedded Lua left as the pack's). */
export function renderFix(client: ClientInfo, plan: FixPlan, pack: Pack): string {
  const values = {
    key: plan.key,
    ...(plan.ttlMs !== undefined && { ttl: plan.ttlMs }),
    ...(plan.body !== undefined && { body: plan.body }),
  };
  // Go's deferred release with nothing after it in the range: the code it guards follows the range.
  const code = renderCode(client.id, 'guard', pack, values, { clientExpression: plan.receiver, indent: plan.indent });
  return withoutSelfAssignment(plan.body === '' ? code.trimEnd() : code, plan.key);
}

/**
 * `String lockKey = lockKey;`: the user's key is a variable with the name the inline lock gives
 * its key, so that declaration goes (Java, C#, Go and JavaScript refuse to declare it twice).
 */
function withoutSelfAssignment(code: string, key: string): string {
  if (!/^\$?\w+$/.test(key)) return code;
  const name = key.replace(/\$/g, '\\$');
  return code.replace(
    new RegExp(`^[ \\t]*(?:const |let |var |String )?${name}\\s*:?=\\s*${name};?[ \\t]*\\n`, 'm'),
    '',
  );
}
