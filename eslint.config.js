// Lint rules, including the purity rule of ARCHITECTURE.md: machines/, projections/ and migrations/
// decide; they must not import anything that does I/O or reads a clock, because replay is only
// honest if deciding is deterministic. The simulator must not know Regent.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioModules = [
  'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'http', 'node:http', 'https', 'node:https', 'net', 'node:net',
  'child_process', 'node:child_process', 'os', 'node:os', 'crypto', 'node:crypto', 'worker_threads', 'node:worker_threads',
  'axios', 'better-sqlite3', '@eventstore/db-client', '@kubernetes/client-node', 'winston', 'uuid', 'prom-client',
];
const regentShell = ['**/src/store/**', '**/src/openstack/**', '**/src/kube/**', '**/src/controllers/**', '**/src/engine/**',
  '**/src/cli/**', '**/src/simulator/**', '**/src/api/**', '**/src/log/**', '**/src/provider/**', '**/src/audit/**'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'test/artifacts/', 'bin/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['machines/**/*.ts', 'projections/**/*.ts', 'migrations/**/*.ts'],
    ignores: ['projections/runner/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: ioModules, patterns: [{ group: regentShell, message: 'deciders are pure: no I/O layers (ARCHITECTURE.md, purity rule)' }] }],
      'no-restricted-globals': ['error', { name: 'Date', message: 'time arrives on the stimulus, never from a clock' }, { name: 'setTimeout', message: 'no timers in deciders' }, { name: 'setInterval', message: 'no timers in deciders' }, { name: 'fetch', message: 'no I/O in deciders' }, { name: 'process', message: 'no environment in deciders' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'no randomness in deciders' }],
    },
  },
  {
    files: ['src/simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/engine/**', '**/src/store/**', '**/machines/**', '**/projections/**', '**/src/controllers/**', '**/src/openstack/**', '../engine/**', '../store/**', '../openstack/**', '../controllers/**'], message: 'the simulator knows nothing of Regent' }] }],
    },
  },
);
