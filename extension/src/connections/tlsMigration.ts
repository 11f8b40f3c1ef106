// The one-time move of the retired window-wide TLS settings into each connection: values from the
// user's settings are copied into the existing TLS connections; values a workspace sets are
// ignored, and the user is told once per settings file.
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { withUserTls } from './saved';

const MIGRATED = 'locksmith.tlsSettingsMigrated';
const TOLD = 'locksmith.tlsSettingsIgnoredIn';

/** What the migration did: connections given the user's TLS settings, and workspace files ignored (and told). */
export interface TlsMigration {
  moved: string[];
  ignoredIn: string[];
}

export async function migrateTlsSettings(ctx: Ctx): Promise<TlsMigration> {
  const state = ctx.extension.globalState;
  const legacy = ctx.config.legacyTls();
  const outcome: TlsMigration = { moved: [], ignoredIn: legacy.ignoredIn };
  if (!state.get<boolean>(MIGRATED)) {
    await ctx.connections.update((before) => {
      const after = withUserTls(before, legacy.user);
      outcome.moved = after.filter((config, i) => config !== before[i]).map((config) => config.id);
      return after;
    });
    if (outcome.moved.length) {
      ctx.log.info(`moved redisLocksmith.tls.* from user settings into ${outcome.moved.length} TLS connection(s)`);
    }
    await state.update(MIGRATED, true);
  }
  const told = new Set(state.get<string[]>(TOLD) ?? []);
  const fresh = legacy.ignoredIn.filter((file) => !told.has(file));
  if (!fresh.length) return outcome;
  await state.update(TOLD, [...told, ...fresh]);
  ctx.log.warn(`ignored redisLocksmith.tls.* set in ${fresh.join(', ')}`);
  void vscode.window.showWarningMessage(
    `${fresh.join(', ')} sets redisLocksmith.tls.caFile or allowInsecure: ignored. A workspace cannot change how your connections verify TLS; each connection has its own TLS settings (Edit Connection).`,
  );
  return outcome;
}
