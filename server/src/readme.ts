// Where each rule is explained: its README section, as a file URI with the heading's line
// (`#L195`), which VS Code opens at that line.
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
function findReadme(from: string): string {
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
