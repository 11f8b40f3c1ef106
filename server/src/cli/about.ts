// What the reports say about the tool and its rules, read once at start from the files shipped
// with it: package.json (name, version, repository) and docs/rules.md (each rule's section,
// linked on GitHub so that code-scanning pages and terminals open it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findUp } from '../../../pack/pack';
import { RULE_CODES, RULE_TITLES, type RuleCode } from '../catalogue';
import { findRulesPage, RULES_PAGE, ruleSections } from '../ruleDocs';

export interface RuleInfo {
  code: RuleCode;
  title: string;
  /** The race the rule catches, in a sentence or two (the section's first lines), or the title when the page lacks it. */
  description: string;
  /** The rule's whole section (markdown), or the title when the page lacks it. */
  help: string;
  /** The section on GitHub. */
  helpUri: string;
}

export interface About {
  name: string;
  displayName: string;
  version: string;
  /** The repository's web address, e.g. https://github.com/owner/name. */
  repository: string;
  /** Where to report a problem with the tool itself. */
  issues: string;
  rules: Map<RuleCode, RuleInfo>;
}

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
export function githubAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

export function readAbout(from: string): About {
  const manifest = JSON.parse(readFileSync(join(findUp('.', 'package.json', from), 'package.json'), 'utf8')) as {
    name: string;
    displayName: string;
    version: string;
    repository: { url: string };
    bugs: { url: string };
  };
  const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  const sections = ruleSections(readFileSync(findRulesPage(from), 'utf8'));
  const rules = new Map<RuleCode, RuleInfo>();
  for (const code of RULE_CODES) {
    const section = sections.get(code);
    const heading = section?.heading ?? `${code}: ${RULE_TITLES[code]}`;
    rules.set(code, {
      code,
      title: RULE_TITLES[code],
      description: section?.race ?? RULE_TITLES[code],
      help: section?.text ?? RULE_TITLES[code],
      helpUri: `${repository}/blob/HEAD/${RULES_PAGE}#${githubAnchor(heading)}`,
    });
  }
  return {
    name: manifest.name,
    displayName: manifest.displayName,
    version: manifest.version,
    repository,
    issues: manifest.bugs.url,
    rules,
  };
}
