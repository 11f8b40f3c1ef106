// The "Replace with Locksmith's vetted lock" fix: the guard snippet of the client the file uses,
// rendered with the user's key expression, lease and guarded statements. No LSP types here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Pack } from '../../pack/pack';
import type { FixPlan } from './analysis/fix';
import type { ClientInfo } from '../../snippets/clients';
import { MANIFEST_GLOBS, rankClients, type Manifest } from '../../snippets/infer';
import { renderCode } from '../../snippets/render';

const manifestName = (name: string) =>
  MANIFEST_GLOBS.some((glob) => (glob.startsWith('*') ? name.endsWith(glob.slice(1)) : name === glob));

/** A manifest found on disk: its base name, its path relative to the workspace root (forward slashes), its text. */
export type FoundManifest = Manifest & { path: string };

/** Manifests in the file's folder and its parents, up to `root` (or 8 levels). */
export function readManifests(file: string, root?: string): FoundManifest[] {
  const manifests: FoundManifest[] = [];
  let dir = dirname(file);
  for (let level = 0; level < 8; level++) {
    try {
      for (const name of readdirSync(dir)) {
        if (!manifestName(name)) continue;
        const path = join(dir, name);
        manifests.push({
          name,
          path: (root ? relative(root, path) : path).split('\\').join('/'),
          text: readFileSync(path, 'utf8'),
        });
      }
    } catch {
      // unreadable folder: look further up
    }
    if (dir === root || dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  return manifests;
}

/** A file's text, or undefined when there is none (or it cannot be read). */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The client the fix is written for: the file's import, else a manifest dependency. */
export function fixClient(languageId: string, source: string, manifests: Manifest[]): ClientInfo | undefined {
  const best = rankClients({ languageId, source, manifests })[0];
  return best?.languageIds.includes(languageId) ? best : undefined;
}

/** A plain client reference (`r`, `this.redis`, `$this->redis`, `@redis`), not a pipeline or transaction. */
const CLIENT_REFERENCE = /^(?:this\.|self\.|\$this->|@)?[$\w]+$/;
const TRANSACTION = /pipe|multi|tx|trans|batch/i;

/** The client expression the fix keeps: the user's when it is a plain reference, not a pipeline or transaction. */
export function clientReceiver(plan: FixPlan): string | undefined {
  return plan.receiver && CLIENT_REFERENCE.test(plan.receiver) && !TRANSACTION.test(plan.receiver)
    ? plan.receiver
    : undefined;
}

/** The replacement text, indented to sit where the replaced statements were. */
export function renderFix(client: ClientInfo, plan: FixPlan, pack: Pack): string {
  const receiver = clientReceiver(plan);
  const values = {
    key: plan.key,
    ...(plan.ttlMs !== undefined && { ttl: plan.ttlMs }),
    ...(plan.body !== undefined && { body: plan.body }),
  };
  const code = renderCode(client.id, 'guard', pack, values, { clientExpression: receiver });
  return code.replace(/\n(?=.)/g, `\n${plan.indent}`);
}
