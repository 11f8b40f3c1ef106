// What Locksmith can do about a finding, in ESLint's model. A fix keeps the program's meaning
// apart from the race the rule names (`lint --fix` applies it, the editor marks it preferred); a
// suggestion changes behaviour (a lease where there was none, waiting instead of skipping) and is
// applied only when a person picks it (the editor, `lint --fix --fix-type suggestion`). When there
// is neither, the reason says why, so the report can tell the user what to do by hand.
import type { Finding } from '../analysis';
import type { FileChange } from '../lockFix';

export type RemedyKind = 'fix' | 'suggestion';

export interface Remedy {
  kind: RemedyKind;
  /** Named for what it changes: "Take the lock and its lease in one SET (NX EX)". */
  title: string;
  /** The same edit offered for several findings (a helper rewrite, a token and its release) is one remedy. */
  id: string;
  /** The file changes; the helper's text is rendered only when they are asked for. */
  changes(): FileChange[];
  /** What it writes instead of the usual, and why (the inline lock, a helper at another place): for reports. */
  readonly note?: string;
}

/** Why a finding gets no fix: a short code (for counting) and what the user can do. */
export interface NoFix {
  code: string;
  why: string;
}

export const noFix = (code: string, why: string): NoFix => ({ code, why });

/**
 * Why a flagged call at `start` was not read again as a Redis command: a call of the code's own
 * method (`this.setnx(...)`, `self.delete(...)`, `$this->del(...)`, or no receiver at all) has no
 * client the fix could call; anything else is a call the fixes do not read.
 */
export function unreadCall(text: string, start: number): NoFix {
  const before = text.slice(Math.max(0, start - 8), start);
  return /(\bthis\.|\bself\.|\$this->|[^\w.>:]|^)$/.test(before)
    ? noFix('own-commands', "the lock's commands are this code's own methods, not a Redis client's: no client to fix")
    : noFix('unread', 'the flagged call could not be read again');
}

export const isNoFix = (value: unknown): value is NoFix =>
  typeof value === 'object' && value !== null && 'why' in value && 'code' in value && !('changes' in value);

export interface FindingRemedies {
  finding: Finding;
  fix?: Remedy;
  suggestions: Remedy[];
  /** Why there is no fix (set whenever `fix` is absent). */
  noFix?: NoFix;
}
