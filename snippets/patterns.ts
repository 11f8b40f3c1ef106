// The three lock patterns every client's snippets implement.
export const PATTERNS = ['guard', 'renew', 'fenced'] as const;
export type PatternId = (typeof PATTERNS)[number];

export interface PatternInfo {
  /** Prefix of the static snippet in contributes.snippets. */
  prefix: string;
  label: string;
  description: string;
}

export const PATTERN_INFO: Record<PatternId, PatternInfo> = {
  guard: {
    prefix: 'lock-guard',
    label: 'Guarded section',
    description: 'Acquire with bounded retry and back-off, run the body, release in finally (compare-and-delete).',
  },
  renew: {
    prefix: 'lock-renew',
    label: 'Auto-extending lease',
    description: 'Like guard, plus a renewal at ttl/3 that stops on release and reports a lost lease.',
  },
  fenced: {
    prefix: 'lock-fenced',
    label: 'Fenced lock',
    description: 'Acquire returns a fencing token that the guarded resource checks to reject stale holders.',
  },
};
