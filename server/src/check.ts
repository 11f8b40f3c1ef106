// What the language server and the lint CLI report for one file, and at which severity: the
// analysis's findings plus LOCK008 on an outdated lock helper, under the `redisLocksmith.lint`
// settings. No LSP types here.
import type { Pack } from '../../pack/pack';
import type { AnalyzedDocument, Finding } from './analysis';
import type { LintSettings, RuleCode, Severity } from './catalogue';
import { outdatedHelper } from './lockFix';

/** Whether the settings lint files of `languageId` at all. */
export function lintsLanguage(settings: LintSettings, languageId: string): boolean {
  return settings.enable && (settings.languages.length === 0 || settings.languages.includes(languageId));
}

/** A rule's severity under the settings; rules not listed are warnings. */
export function severityOf(settings: LintSettings, code: RuleCode): Severity {
  return settings.rules[code] ?? 'warning';
}

export interface CheckedText {
  /** Sorted by offset, LOCK008 (on the helper's header) first. */
  findings: Finding[];
  /** The helper's text as the installed pack renders it, when the text is an outdated helper (LOCK008's fix). */
  helperUpdate?: string;
}

/** Analyses `text` with `analysis` (which keeps or drops its tree as its owner decides) and checks it as a lock helper. */
export async function checkText(analysis: AnalyzedDocument, text: string, pack: Pack): Promise<CheckedText> {
  const findings = await analysis.analyze(text);
  const outdated = text.includes('@locksmith-helper') ? outdatedHelper(text, pack) : undefined;
  if (!outdated) return { findings };
  const { update, ...finding } = outdated;
  return { findings: [finding, ...findings], helperUpdate: update };
}
