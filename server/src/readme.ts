// Where each rule is explained: its README section, as a file URI with the heading's line
// (`#L195`), which VS Code opens at that line; and the section's text (the lint CLI's SARIF
// carries it as each rule's help).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findUp } from '../../pack/pack';
import { RULE_CODES, RULE_TITLES, type RuleCode } from './catalogue';

export interface RuleDoc {
  uri: string;
  /** 0-based line of the `### LOCKnnn: title` heading. */
  line: number;
}

/** The project's README: `README.md` in a checkout, `readme.md` in an installed .vsix (vsce renames it). */
export function findReadme(from: string): string {
  for (const name of ['README.md', 'readme.md']) {
    try {
      return join(findUp('.', name, from), name);
    } catch {
      // not under this name: try the other
    }
  }
  throw new Error(`no README.md above ${from}`);
}

export function ruleDocs(from: string = __dirname): Map<RuleCode, RuleDoc> {
  const path = findReadme(from);
  const lines = readFileSync(path, 'utf8').split('\n');
  const uri = pathToFileURL(path).href;
  const docs = new Map<RuleCode, RuleDoc>();
  for (const code of RULE_CODES) {
    const line = lines.indexOf(`### ${code}: ${RULE_TITLES[code]}`);
    if (line >= 0) docs.set(code, { uri, line });
  }
  return docs;
}

export interface RuleSection {
  /** The heading's text, without the `### `. */
  heading: string;
  /** The section's paragraphs, up to the next heading, trimmed. */
  text: string;
}

export function ruleSections(readme: string): Map<RuleCode, RuleSection> {
  const lines = readme.split('\n');
  const sections = new Map<RuleCode, RuleSection>();
  for (const code of RULE_CODES) {
    const heading = `${code}: ${RULE_TITLES[code]}`;
    const at = lines.indexOf(`### ${heading}`);
    if (at < 0) continue;
    const next = lines.findIndex((line, i) => i > at && line.startsWith('#'));
    const text = lines
      .slice(at + 1, next < 0 ? undefined : next)
      .join('\n')
      .trim();
    sections.set(code, { heading, text });
  }
  return sections;
}
