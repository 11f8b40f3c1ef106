// Where each rule is explained: its section of docs/rules.md (`## LOCKnnn: title`), found above
// the running code (a checkout, the installed .vsix, the npm package: each ships the page). The
// server links every diagnostic to the heading's line (`#L195`, which editors open at that
// line); the CLI's reports carry the section as each rule's help and link it on GitHub.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findUp } from '../../pack/pack';
import { RULE_CODES, RULE_TITLES, type RuleCode } from './catalogue';

/** The rules' page, relative to the project's (or the package's) root, as GitHub serves it. */
export const RULES_PAGE = 'docs/rules.md';

/** The absolute path of docs/rules.md above `from`. */
export function findRulesPage(from: string = __dirname): string {
  return join(findUp('docs', 'rules.md', from), 'rules.md');
}

export interface RuleSection {
  /** The heading's text, without the `## `: `LOCK001: SETNX followed by a separate EXPIRE`. */
  heading: string;
  /** 0-based line of the heading. */
  line: number;
  /** The race, in the two lines that follow the heading, joined. */
  race: string;
  /** The `Fix: ...` line that follows them. */
  fix: string;
  /** The whole section up to the next `## ` heading (markdown, code blocks included), trimmed. */
  text: string;
}

/** Each rule's section of the page's text; a rule whose heading is missing is left out. */
export function ruleSections(page: string): Map<RuleCode, RuleSection> {
  const lines = page.split('\n');
  const sections = new Map<RuleCode, RuleSection>();
  for (const code of RULE_CODES) {
    const heading = `${code}: ${RULE_TITLES[code]}`;
    const line = lines.indexOf(`## ${heading}`);
    if (line < 0) continue;
    const next = lines.findIndex((each, i) => i > line && each.startsWith('## '));
    const body = lines.slice(line + 1, next < 0 ? undefined : next);
    const lead = body.slice(body.findIndex((each) => each !== ''));
    const fixAt = lead.findIndex((each) => each.startsWith('Fix: ') || each === '');
    sections.set(code, {
      heading,
      line,
      race: lead.slice(0, Math.max(fixAt, 0)).join(' '),
      fix: fixAt >= 0 && lead[fixAt].startsWith('Fix: ') ? lead[fixAt] : '',
      text: body.join('\n').trim(),
    });
  }
  return sections;
}

export interface RuleLink {
  /** file: URI of docs/rules.md. */
  uri: string;
  /** 0-based line of the rule's heading. */
  line: number;
}

/** Where each rule's section is on disk, for diagnostics' links and Explain. */
export function ruleLinks(from: string = __dirname): Map<RuleCode, RuleLink> {
  const path = findRulesPage(from);
  const uri = pathToFileURL(path).href;
  const links = new Map<RuleCode, RuleLink>();
  for (const [code, { line }] of ruleSections(readFileSync(path, 'utf8'))) links.set(code, { uri, line });
  return links;
}
