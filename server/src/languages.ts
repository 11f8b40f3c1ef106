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

export function grammarOf(languageId: string): Grammar | undefined {
  return Object.hasOwn(LANGUAGE_GRAMMARS, languageId) ? LANGUAGE_GRAMMARS[languageId as LintedLanguage] : undefined;
}

/** The language of a source file by its extension, as VS Code names it (for files not open in an editor). */
const FILE_LANGUAGES: Record<string, LintedLanguage> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascriptreact',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescriptreact',
  py: 'python',
  java: 'java',
  go: 'go',
  php: 'php',
  cs: 'csharp',
  rb: 'ruby',
  lua: 'lua',
};

/** The file extensions of the linted languages, for globs (`**\/*.{js,ts,...}`). */
export const LINTED_FILE_EXTENSIONS = Object.keys(FILE_LANGUAGES);

export function languageOfPath(path: string): LintedLanguage | undefined {
  const extension = /\.([^./\\]+)$/.exec(path)?.[1].toLowerCase();
  return extension && Object.hasOwn(FILE_LANGUAGES, extension) ? FILE_LANGUAGES[extension] : undefined;
}
