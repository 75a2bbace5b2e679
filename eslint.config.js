import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import pluginVue from 'eslint-plugin-vue';

// Tests, benches, the test kit and the browser tests: not production code.
const NOT_PRODUCTION = ['**/*.test.ts', '**/bench/**', 'testkit/**', 'ops/src/web-e2e/**'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.stack/**', '**/dist/**', 'coverage/**', 'web/src/api/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.cjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'no-console': 'off',
      // Async functions that implement async interfaces (role starters, fastify plugins) need no await.
      '@typescript-eslint/require-await': 'off',
      // Disagrees with tsc on pino's Logger vs fastify's base logger (tsc needs those casts).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    // Tests and benches read untyped JSON (inject().json(), parsed frames) on purpose.
    files: NOT_PRODUCTION,
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Issue 34: no function in production code over 200 lines, counted as a reader sees them (blank
    // lines and comments included, an immediately invoked function too), so a long function cannot
    // pass by being commented.
    files: ['**/*.{ts,js,mjs,cjs,vue}'],
    ignores: NOT_PRODUCTION,
    rules: { 'max-lines-per-function': ['error', { max: 200, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, ...tseslint.configs.disableTypeChecked },
  // The UI has its own tsconfig and is type-checked by vue-tsc (`npm run typecheck -w web`, part of lint).
  { files: ['web/**/*.{ts,vue,js}'], ...tseslint.configs.disableTypeChecked },
  { files: ['web/**/*.{ts,vue}'], languageOptions: { globals: { ...globals.browser } } },
  // Vue single-file components: the plugin's recommended rules, <script lang="ts"> parsed by typescript-eslint;
  // formatting is prettier's.
  ...pluginVue.configs['flat/recommended'].map((c) => ({ ...c, files: ['web/**/*.vue'] })),
  {
    files: ['web/**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser }, globals: { ...globals.browser } },
    rules: {
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
    },
  },
);
