// The lint settings as the client sends them (`redisLocksmith.lint`), checked: anything
// malformed falls back to the default rather than switching rules off by accident.
import {
  DEFAULT_LINT_SETTINGS,
  RULE_CODES,
  SEVERITIES,
  type LintSettings,
  type RuleCode,
  type Severity,
} from './catalogue';

export function readSettings(raw: unknown): LintSettings {
  if (!raw || typeof raw !== 'object') return DEFAULT_LINT_SETTINGS;
  const { enable, rules, languages } = raw as Record<string, unknown>;
  const severities: Partial<Record<RuleCode, Severity>> = {};
  if (rules && typeof rules === 'object') {
    for (const [code, severity] of Object.entries(rules)) {
      if ((RULE_CODES as readonly string[]).includes(code) && (SEVERITIES as readonly unknown[]).includes(severity)) {
        severities[code as RuleCode] = severity as Severity;
      }
    }
  }
  return {
    enable: typeof enable === 'boolean' ? enable : DEFAULT_LINT_SETTINGS.enable,
    rules: severities,
    languages: Array.isArray(languages)
      ? languages.filter((language): language is string => typeof language === 'string')
      : [],
  };
}
