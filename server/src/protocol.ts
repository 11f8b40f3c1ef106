// Requests of the extension's own to its language server, beyond LSP. No imports: the extension
// bundle reads this file too.

/** Go to Code That Takes This Lock: the acquire sites among `files` whose key pattern matches `key`. */
export const LOCK_SITES_REQUEST = 'locksmith/lockSites';

export interface LockSitesParams {
  /** The live key, as the Locks view shows it. */
  key: string;
  /** Paths of the files to search. */
  files: string[];
}

/** A match: where the acquire is (LSP range) and the key expression it was matched by. */
export interface LockSiteLocation {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  keyText: string;
  keyGlob: string;
}
