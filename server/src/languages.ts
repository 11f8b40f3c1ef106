// VS Code language ids whose sources the language server checks; package.json's
// activationEvents list the same ids (a test keeps the two in step).
export const LINTED_LANGUAGES = [
  'javascript',
  'javascriptreact',
  'typescript',
  'typescriptreact',
  'python',
  'java',
  'go',
  'php',
  'csharp',
  'ruby',
  'lua',
] as const;
