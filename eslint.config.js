// Lint is part of `npm test`. Beyond the recommended rules it enforces the
// one-way data flow between the src folders (ALLOWED_IMPORTS).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Which src folder may import which, declared once, here. Every import from
 * one of these folders into another that its list does not name is a lint
 * error; the lists form no circle (test/lint/fences.test.ts checks both, and
 * asks ESLint to refuse a forbidden import). Data flows one way:
 * config -> api -> collectors and the forwarder, run by the engine -> counters
 * -> exporters -> server, wired by daemon, run by cli. Every HTTP client (the
 * upstream's in api, OTLP's and remote-write's in exporters) is built by
 * outbound from what config resolved for it.
 */
export const ALLOWED_IMPORTS = {
  shared: [],
  log: [],
  outbound: ['shared'],
  state: ['shared'],
  api: ['log', 'outbound', 'shared'],
  config: ['api', 'log', 'outbound', 'shared'],
  simulator: ['api', 'shared'],
  collectors: ['api', 'config', 'shared', 'state'],
  counters: ['collectors', 'shared', 'state'],
  engine: ['api', 'collectors', 'counters', 'shared', 'state'],
  forwarder: ['api', 'collectors', 'config', 'counters', 'engine', 'shared', 'state'],
  exporters: ['collectors', 'counters', 'engine', 'forwarder', 'outbound', 'shared'],
  server: ['shared'],
  doctor: ['api', 'collectors', 'config', 'forwarder', 'log', 'shared'],
  daemon: ['api', 'collectors', 'config', 'counters', 'engine', 'exporters', 'forwarder', 'log', 'outbound', 'server', 'shared', 'state'],
  cli: ['api', 'config', 'daemon', 'doctor', 'log', 'shared', 'simulator', 'state'],
};

/** Packages a folder must not use, besides the folder fences. */
const FORBIDDEN_PACKAGES = {
  outbound: ['prom-client', '@opentelemetry/*'],
  api: ['prom-client', '@opentelemetry/*'],
  simulator: ['prom-client', '@opentelemetry/*'],
  collectors: ['prom-client', '@opentelemetry/*'],
  counters: ['prom-client', '@opentelemetry/*'],
  engine: ['prom-client', '@opentelemetry/*'],
  forwarder: ['prom-client', '@opentelemetry/*'],
  doctor: ['prom-client', '@opentelemetry/*'],
};

/** The rooms whose insides the exporters and the daemon see only through their index.ts. */
const SURFACES = ['collectors', 'counters', 'engine', 'forwarder', 'outbound'];
const throughSurfaces = (extra) => [
  ...SURFACES.map((room) => `**/${room}/**/*.js`),
  ...SURFACES.map((room) => `!**/${room}/index.js`),
  ...extra,
];

/** The fence for a folder that reaches only the outbound room, and only through its index.ts. */
const outboundSurface = (folder) => ({
  group: ['**/outbound/**/*.js', '!**/outbound/index.js'],
  message: `src/${folder} may import src/outbound only through its index.js.`,
});

/** Finer fences inside an allowed folder: a group whose later `!` patterns let a few files through. */
const FORBIDDEN_WITHIN = {
  // The doctor judges with the collectors' pure contract helpers only (files, so `!` can re-include them), and asks the
  // WAF query as the forwarder does: its request builders and page reader, which take the client they are given.
  doctor: [{
    group: [
      '**/collectors/**/*.js', '!**/collectors/contract/*.js', '!**/collectors/units.js', '!**/collectors/buckets.js',
      '**/forwarder/**/*.js', '!**/forwarder/record-time.js', '!**/forwarder/fetch.js', '!**/forwarder/audit-check.js',
      '!**/forwarder/audit.js',
    ],
    message: 'src/doctor may use only the pure helpers of src/collectors (contract/, units, buckets) ' +
      'and the WAF query\'s builders and page reader (forwarder/record-time, fetch, audit-check, audit).',
  }],
  // The exporters see each room below them only through the surface its index.ts declares, so
  // what lies behind it (the series path, the ledger's insides) can change without touching them.
  exporters: [{
    group: throughSurfaces([]),
    message: 'src/exporters may import src/collectors, counters, engine, forwarder and outbound only through their index.js (the declared surface).',
  }],
  // The daemon wires every collector family, so it may also use each family folder's own index.ts
  // (a family's factory and options), never a file behind one.
  daemon: [{
    group: throughSurfaces(['!**/collectors/*/index.js']),
    message: 'src/daemon may import src/collectors, counters, engine, forwarder and outbound only through their index.js, or a collectors folder\'s index.js.',
  }],
  // The upstream client and the config see the outbound room as the exporters do: through what its index.ts declares.
  api: [outboundSurface('api')],
  config: [outboundSurface('config')],
};

const fence = (folder) => {
  const others = Object.keys(ALLOWED_IMPORTS).filter((f) => f !== folder && !ALLOWED_IMPORTS[folder].includes(f));
  const allowed = ALLOWED_IMPORTS[folder].length > 0 ? ALLOWED_IMPORTS[folder].join(', ') : 'no other src folder';
  return {
    files: [`src/${folder}/**`],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          ...others.map((f) => ({ group: [`**/${f}/**`], message: `src/${folder} may import ${allowed} (ALLOWED_IMPORTS in eslint.config.js), not src/${f}.` })),
          ...(FORBIDDEN_PACKAGES[folder] ?? []).map((pkg) => ({ group: [pkg], message: `src/${folder} does not use ${pkg}.` })),
          ...(FORBIDDEN_WITHIN[folder] ?? []),
        ],
      }],
    },
  };
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.bench-build/**'] },
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
  ...Object.keys(ALLOWED_IMPORTS).map(fence),
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
