// The lint rules: codes and one-line titles. The server reports them, the manifest's settings
// list them, docs/rules.md has one section each (tests keep the three in step).
export const RULE_CODES = [
  'LOCK001',
  'LOCK002',
  'LOCK003',
  'LOCK004',
  'LOCK005',
  'LOCK006',
  'LOCK007',
  'LOCK008',
  'LOCK009',
  'LOCK010',
] as const;
export type RuleCode = (typeof RULE_CODES)[number];

export const RULE_TITLES: Record<RuleCode, string> = {
  LOCK001: 'SETNX followed by a separate EXPIRE',
  LOCK002: 'Lock taken with NX and no expiry',
  LOCK003: 'Lock released by a blind DEL',
  LOCK004: 'GET, compare, then DEL: a release that is not atomic',
  LOCK005: 'Timestamp value and GETSET takeover',
  LOCK006: 'Constant lock value: no owner identity',
  LOCK007: 'Lua script touches keys not passed in KEYS',
  LOCK008: 'Lock helper outdated: the script pack changed',
  LOCK009: 'Lease renewal whose reply is ignored',
  LOCK010: 'Retry loop that polls without sleeping',
};

export const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface LintSettings {
  enable: boolean;
  /** Severity per rule; `off` silences it. Rules not listed are warnings. */
  rules: Partial<Record<RuleCode, Severity>>;
  /** Language ids to check; every linted language when empty. */
  languages: string[];
}

export const DEFAULT_LINT_SETTINGS: LintSettings = { enable: true, rules: {}, languages: [] };

/** Server command behind the "Explain" code action: shows the rule's section of docs/rules.md. */
export const EXPLAIN_COMMAND = 'locksmith.server.explainRule';
