// The lint settings of a file as VS Code would apply them: the `redisLocksmith.lint` section of
// the nearest `.vscode/settings.json` at or above the file's folder (not above the repository's
// top), JSONC (comments and trailing commas allowed), written either flat
// (`"redisLocksmith.lint.rules": {...}`) or nested (`"redisLocksmith": { "lint": {...} }`); then
// the command line's `--rule` on top. Unlike the editor, which skips a malformed value quietly,
// the CLI reports it (file, line, column) so that CI does not run with rules nobody meant.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { RULE_CODES, SEVERITIES, type LintSettings, type RuleCode, type Severity } from '../catalogue';
import { LINTED_LANGUAGES } from '../languages';
import { readSettings } from '../settings';
import { LineIndex } from './positions';

export type RuleOverrides = Partial<Record<RuleCode, Severity>>;

export interface ConfigProblem {
  /** The settings file, absolute. */
  path: string;
  line: number;
  column: number;
  message: string;
}

const SECTION = ['redisLocksmith', 'lint'];
const KEYS = ['enable', 'rules', 'languages'] as const;
type Key = (typeof KEYS)[number];

const list = (values: readonly string[]) => values.join(', ');

/** Reads one settings file's lint section; problems found in it are added to `problems`. */
export function readSettingsFile(path: string, text: string, problems: ConfigProblem[]): LintSettings {
  const found: ConfigProblem[] = [];
  const settings = readSection(path, text, found);
  problems.push(...found.sort((a, b) => a.line - b.line || a.column - b.column));
  return settings;
}

function readSection(path: string, text: string, problems: ConfigProblem[]): LintSettings {
  const lines = new LineIndex(text);
  const problem = (offset: number, message: string) => problems.push({ path, ...lines.placeOf(offset), message });
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !root) {
    const first = errors[0];
    problem(
      first?.offset ?? 0,
      `not valid JSON (${first ? printParseErrorCode(first.error) : 'empty'}): fix the file, or VS Code ignores it too`,
    );
    return readSettings(undefined);
  }
  if (root.type !== 'object') {
    problem(root.offset, 'settings.json holds an object of settings');
    return readSettings(undefined);
  }
  const found: Partial<Record<Key, Node>> = {};
  // Keys may be dotted at any level: "redisLocksmith.lint.rules", "redisLocksmith": { "lint.rules": ... }.
  const visit = (object: Node, prefix: string[]) => {
    for (const property of object.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      if (!keyNode || !valueNode || typeof keyNode.value !== 'string') continue;
      const path = [...prefix, ...keyNode.value.split('.')];
      const inSection = SECTION.every((segment, i) => i >= path.length || path[i] === segment);
      if (!inSection) continue;
      if (path.length <= SECTION.length) {
        if (valueNode.type === 'object') visit(valueNode, path);
        continue;
      }
      const key = path.slice(SECTION.length).join('.');
      if ((KEYS as readonly string[]).includes(key)) found[key as Key] = valueNode;
      else problem(keyNode.offset, `unknown setting ${path.join('.')} (the lint settings are ${list(KEYS)})`);
    }
  };
  visit(root, []);

  const raw: Record<string, unknown> = {};
  if (found.enable) {
    if (found.enable.type === 'boolean') raw.enable = found.enable.value;
    else problem(found.enable.offset, 'redisLocksmith.lint.enable is true or false');
  }
  if (found.rules) {
    if (found.rules.type !== 'object') problem(found.rules.offset, 'redisLocksmith.lint.rules is an object');
    const rules: Record<string, unknown> = {};
    for (const property of found.rules.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      if (!keyNode || !valueNode) continue;
      const code = keyNode.value as string;
      if (!(RULE_CODES as readonly string[]).includes(code)) {
        problem(keyNode.offset, `unknown rule ${code} (the rules are ${RULE_CODES[0]} to ${RULE_CODES.at(-1)})`);
      } else if (!(SEVERITIES as readonly unknown[]).includes(valueNode.value)) {
        problem(
          valueNode.offset,
          `${code}: ${JSON.stringify(valueNode.value)} is not a severity (${list(SEVERITIES)})`,
        );
      } else {
        rules[code] = valueNode.value;
      }
    }
    raw.rules = rules;
  }
  if (found.languages) {
    if (found.languages.type !== 'array') problem(found.languages.offset, 'redisLocksmith.lint.languages is an array');
    const languages: string[] = [];
    for (const item of found.languages.children ?? []) {
      if ((LINTED_LANGUAGES as readonly unknown[]).includes(item.value)) languages.push(item.value as string);
      else
        problem(item.offset, `${JSON.stringify(item.value)} is not a linted language id (${list(LINTED_LANGUAGES)})`);
    }
    raw.languages = languages;
  }
  return readSettings(raw);
}

/** Finds and reads each folder's settings once; `--rule` overrides go on top. */
export class SettingsFinder {
  private readonly byFolder = new Map<string, LintSettings>();
  readonly problems: ConfigProblem[] = [];

  constructor(
    private readonly overrides: RuleOverrides,
    /** The repository's top folder above a folder, if any: the search stops there. */
    private readonly topOf: (dir: string) => string | undefined,
  ) {}

  forFile(path: string): LintSettings {
    const dir = dirname(path);
    return this.forFolder(dir, this.topOf(dir));
  }

  private forFolder(dir: string, top: string | undefined): LintSettings {
    const known = this.byFolder.get(dir);
    if (known) return known;
    let settings: LintSettings;
    const file = join(dir, '.vscode', 'settings.json');
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // no settings here: the folder above decides
    }
    if (text !== undefined) {
      const own = readSettingsFile(file, text, this.problems);
      settings = { ...own, rules: { ...own.rules, ...this.overrides } };
    } else if (dir === top || dirname(dir) === dir) {
      settings = readSettings({ rules: this.overrides });
    } else {
      settings = this.forFolder(dirname(dir), top);
    }
    this.byFolder.set(dir, settings);
    return settings;
  }
}
