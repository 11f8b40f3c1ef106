// Type-aware linting for every TypeScript file the project compiles; formatting is Prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/out/**',
      'node_modules/**',
      'test/fixtures/**',
      'test/golden/**',
      'snippets/templates/**',
      // Programs in the clients' languages that run the generated helpers, not project code.
      'test/proofs/helpers/*.js',
      'test/proofs/fixes/*.js',
      'test/proofs/glide/*.js',
      '.test-artifacts/**',
      // The npm package assembled by tools/npm-package.ts: a copy of built files and templates.
      '.build/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Unused names fail the build already (tsconfig noUnused*); `_` marks a deliberately ignored one.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The extension requires ioredis and the language client on first use, not at activation.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^ioredis$', '^vscode-languageclient/node$'] }],
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Matching control characters is the point here: they are escaped before a key is shown.
    files: ['extension/src/locks/classify.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
