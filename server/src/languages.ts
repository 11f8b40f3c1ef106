// The one table of linted languages: VS Code language id -> the tree-sitter grammar that parses
// it. The server parses with it, the extension's client selects documents by its keys, and
// package.json's activationEvents and lint.languages enum list the same ids (tests keep them in
// step). No imports: the extension bundle reads this file too.
export const LANGUAGE_GRAMMARS = {
  javascript: 'javascript',
  javascriptreact: 'javascript',
  typescript: 'typescript',
  typescriptreact: 'tsx',
  python: 'python',
  java: 'java',
  go: 'go',
  php: 'php',
  csharp: 'c-sharp',
  ruby: 'ruby',
  lua: 'lua',
} as const;

export type LintedLanguage = keyof typeof LANGUAGE_GRAMMARS;
export type Grammar = (typeof LANGUAGE_GRAMMARS)[LintedLanguage];

export const LINTED_LANGUAGES = Object.keys(LANGUAGE_GRAMMARS) as LintedLanguage[];

/** Each grammar once, in table order. */
export const GRAMMARS: readonly Grammar[] = [...new Set(Object.values(LANGUAGE_GRAMMARS))];

/** The file extensions of each language, as the lint CLI picks files (without the dot). */
export const LANGUAGE_EXTENSIONS: Record<LintedLanguage, readonly string[]> = {
  javascript: ['js', 'mjs', 'cjs'],
  javascriptreact: ['jsx'],
  typescript: ['ts', 'mts', 'cts'],
  typescriptreact: ['tsx'],
  python: ['py'],
  java: ['java'],
  go: ['go'],
  php: ['php'],
  csharp: ['cs'],
  ruby: ['rb'],
  lua: ['lua'],
};

const LANGUAGE_BY_EXTENSION = new Map(
  LINTED_LANGUAGES.flatMap((language) => LANGUAGE_EXTENSIONS[language].map((extension) => [extension, language])),
);

/** The linted language of a file name, by its extension (case-sensitive, like the editor's defaults). */
export function languageOfFile(name: string): LintedLanguage | undefined {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? LANGUAGE_BY_EXTENSION.get(name.slice(dot + 1)) : undefined;
}

export function grammarOf(languageId: string): Grammar | undefined {
  return Object.hasOwn(LANGUAGE_GRAMMARS, languageId) ? LANGUAGE_GRAMMARS[languageId as LintedLanguage] : undefined;
}

/** The file extensions of the linted languages, for globs (`**\/*.{js,ts,...}`). */
export const LINTED_FILE_EXTENSIONS = LINTED_LANGUAGES.flatMap((language) => LANGUAGE_EXTENSIONS[language]);
