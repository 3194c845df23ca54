// Lint run by `npm test`: typescript-eslint's recommended rules, plus the type-aware ones that catch
// real bugs in async code (a promise nobody awaits, a promise where a value was meant).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test/fixtures/independent/', 'test/artifacts/', 'spec/validators.generated.ts'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  // The pages' inline scripts (reports/assets/, embedded by scripts/embed-assets.js): classic browser scripts, so
  // only the browser globals they use are known, and a name nothing defines is an error.
  {
    files: ['reports/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { document: 'readonly', window: 'readonly', location: 'readonly', setTimeout: 'readonly' },
    },
    rules: { 'no-undef': 'error', 'no-implicit-globals': 'error' },
  },
);
