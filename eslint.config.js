// Lint is part of `npm test`. Beyond the recommended rules it enforces the
// one-way data flow: config -> api -> collectors -> exporters -> server.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// A forbidden entry is one gitignore-style pattern, or a list whose later
// `!` patterns let a few files through (one group, so the negation applies).
const layer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map((group) => ({ group: Array.isArray(group) ? group : [group], message })) },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  layer(
    ['src/api/**'],
    ['**/collectors/**', '**/exporters/**', '**/server/**', '**/simulator/**', 'prom-client', '@opentelemetry/*'],
    'src/api is the typed upstream client: it knows nothing about metrics, exporters or the simulator.',
  ),
  layer(
    ['src/simulator/**'],
    ['**/collectors/**', '**/exporters/**', '**/server/**', 'prom-client', '@opentelemetry/*'],
    'The simulator stands in for the upstream and must not depend on the exporter side.',
  ),
  layer(
    ['src/collectors/**'],
    ['**/exporters/**', '**/server/**', '**/simulator/**', 'prom-client', '@opentelemetry/*'],
    'Collectors hand plain samples to an interface they declare; they never touch prom-client or OTel.',
  ),
  layer(
    ['src/doctor/**'],
    [
      '**/exporters/**', '**/server/**', '**/simulator/**', '**/daemon/**', '**/cli/**', '**/state/**', 'prom-client', '@opentelemetry/*',
      // Of the collectors, only the pure helpers that state the assumptions (files, so the `!` can re-include them).
      [
        '**/collectors/**/*.js',
        '!**/collectors/contract/*.js',
        '!**/collectors/units.js',
        '!**/collectors/buckets.js',
        '!**/collectors/waf-events/record-time.js',
      ],
    ],
    'The doctor asks through src/api and judges with the collectors\' pure contract helpers; the CLI wires it to the upstream.',
  ),
  layer(
    ['src/exporters/**'],
    ['**/api/**', '**/simulator/**'],
    'Exporters know nothing about the upstream field names.',
  ),
  {
    files: ['src/**'],
    ignores: ['src/config/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment only in src/config.' },
      ],
    },
  },
);
