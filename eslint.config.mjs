// ESLint flat config: typescript-eslint's recommended rules everywhere, plus the type-aware
// rules that catch real bugs in this code base (promises nobody awaits, promises passed where a
// callback is expected); Prettier owns formatting, so its conflicting rules are off.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'docs/node_modules/',
      'docs/.vitepress/cache/',
      'docs/.vitepress/dist/',
      'reports/',
      '.cache/',
      'coverage/',
      'types/',
      '.scratch/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The docs site's config is type-checked by VitePress itself, with the docs group's modules.
    files: ['docs/**/*.mts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // A throwaway benchmark project the CLI tests run through Jest.
    files: ['tests/**/fixtures/**/*.js'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    // A client library's declaration loads its adapters on first use (require), so a library that
    // is not installed costs nothing until that client is asked for.
    files: ['src/client/*/library.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  prettier,
);
