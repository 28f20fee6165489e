// Lint rules: typescript-eslint's type-aware recommended set, plus the project's rules
// (no `any` crossing a boundary, no raw console in library code).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'web/dist/**', 'kernels/assembly/**', 'kernels/corpus/**', 'test/fixtures/assembly/**', 'results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'bin/*.mjs', 'test/*.js', 'test/crash/*.mjs', 'test/helpers/*.mjs', 'kernels/build/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The few plain-JS entry points (bin shim, test launcher, this file) run on Node as they are.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    // disableTypeChecked's own parserOptions kept (no project service for them), so the number of
    // plain-JS files is not capped by typescript-eslint's default-project limit of 8.
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-console': 'off' },
  },
  {
    // The CLI layer and tests talk to the terminal on purpose.
    files: ['cli/**', 'test/**', 'bin/**', '*.js'],
    rules: { 'no-console': 'off' },
  },
  {
    // node:test's test() returns a promise the runner itself awaits.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
);
