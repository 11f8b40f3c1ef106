// "Is the pack loaded?" from SCRIPT EXISTS per master: one module for the runtime's loaded() and
// loadWhereMissing() and the Scripts view.
import { SCRIPT_NAMES, type ScriptName } from './pack';

export type LoadedScripts = Record<ScriptName, boolean>;

/** Every script of the pack is cached on this master. */
export function hasEveryScript(flags: LoadedScripts): boolean {
  return SCRIPT_NAMES.every((name) => flags[name]);
}

/** Per script: cached on every master (a script missing on one fails there with NOSCRIPT). */
export function loadedEverywhere(byMaster: ReadonlyMap<string, LoadedScripts>): LoadedScripts {
  const perMaster = [...byMaster.values()];
  return Object.fromEntries(
    SCRIPT_NAMES.map((name) => [name, perMaster.every((flags) => flags[name])]),
  ) as LoadedScripts;
}
