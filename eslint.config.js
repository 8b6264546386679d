// Lint rules, including the layer fence of ARCHITECTURE.md: machines/, projections/ and migrations/ decide; they
// must not import anything that does I/O or reads a clock, because replay is only honest if deciding is
// deterministic. The layers below them (stores, clients, the resource source, events, resource codecs) must not
// import what is built on them, or a change to a controller could break the event store. The simulator must not
// know Regent.
//
// The fence is an allow-list (issue 25): every folder of src/ and the three decider folders belong to one layer in
// LAYERS below, and a file imports only from its own layer, the layers its `imports` names, and — for the deciders —
// the packages and the pure modules named there. A folder that is in no layer fails lint until it is placed, so a
// new module cannot slip past the fence the way src/nova once did. Proven by test/audit/layering.test.ts.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers, lowest first. `imports` names the other layers a layer may import (its own is always allowed);
 * `packages`, when present, is the only npm packages it may import (with their subpaths); `modules` names single
 * files of another layer it may import although that layer is not in `imports`.
 */
export const LAYERS = [
  // Vocabulary every layer speaks: typed errors, the logger, the event envelope and decoders, the resource codecs.
  { name: 'foundation', dirs: ['src/errors', 'src/log', 'src/events', 'src/resources'], imports: [] },
  // I/O adapters: the event stores, the OpenStack clients, the resource source (embedded or Kubernetes), and the
  // resources' own streams (src/resource-history: the author stamp the resource stores keep, the recorder's appends).
  { name: 'adapters', dirs: ['src/store', 'src/openstack', 'src/kube', 'src/resource-history'], imports: ['foundation'] },
  // Pure deciders: the machines, the status projections, the upcasters. No I/O, no clock (the globals rule below),
  // and only what is listed here: a module named in `modules` must itself be pure (read it before adding one).
  {
    name: 'deciders',
    dirs: ['machines', 'projections', 'migrations'],
    imports: [],
    packages: ['xstate', 'io-ts', 'fp-ts'],
    modules: [
      'src/events/envelope.ts', // the stored event's type, which a definition names (machines/definition.ts)
      'src/resources/server.ts', // Server spec types the create gates and SpecRealized read (io-ts codecs only)
      'src/resources/nova.ts', // the Nova spec the Nova status reads (io-ts codecs only)
      'src/resources/nova-compute.ts', // the NovaCompute Ready sub-conditions the pool's status reads (io-ts codecs only)
      'src/resources/workload-cluster.ts', // the exports' schema type the cluster's exports and status are rendered to (io-ts codecs only)
      'src/resources/codec/transitions.ts', // the spec fields that may change, for SpecRealized (a constant table)
    ],
  },
  // Decisions made durable: the engine and the registry of machine definitions.
  { name: 'engine', dirs: ['src/engine', 'src/machine-registry'], imports: ['deciders', 'adapters', 'foundation'] },
  // What a controller drives: the OpenStack provider (inventory, regions, effects), the Nova Database step's ports and the
  // workload clusters' exports publication port (src/workload).
  { name: 'services', dirs: ['src/provider', 'src/nova', 'src/workload'], imports: ['engine', 'deciders', 'adapters', 'foundation'] },
  // Controllers, status, the HTTP API, audit, metrics, the plan (src/plan: the controllers' passes over a fork) and the
  // composition roots (app, cli). No order is enforced inside it (the control plane is being regrouped by kind); audit
  // never importing cli is its own test.
  {
    name: 'shell',
    dirs: ['src/controllers', 'src/status', 'src/observability', 'src/api', 'src/audit', 'src/app', 'src/cli', 'src/plan'],
    imports: ['services', 'engine', 'deciders', 'adapters', 'foundation', 'simulator'],
  },
  // The OpenStack simulator stands in for a cloud: it knows nothing of Regent.
  { name: 'simulator', dirs: ['src/simulator'], imports: [] },
];

const ROOT = import.meta.dirname;

/** A path relative to the repository with `/` separators, or null when it lies outside the repository. */
const repoPath = (absolute) => {
  const path = relative(ROOT, absolute);
  return path.startsWith('..') || isAbsolute(path) ? null : path.split(sep).join('/');
};
const withoutExtension = (path) => path.replace(/\.(?:[cm]?[jt]s|tsx)$/, '');

/** regent/layers: every import of a file in a layer, resolved against the file, is checked against LAYERS. */
const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'a layer imports only what eslint.config.js LAYERS allows it' },
    schema: [{ type: 'object', properties: { layers: { type: 'array' } }, required: ['layers'], additionalProperties: false }],
    messages: {
      forbidden: '{{file}} is in layer {{layer}}, which may not import {{target}} (layer {{targetLayer}}); it may import {{allowed}} (eslint.config.js LAYERS)',
      package: '{{file}} is in layer {{layer}}, which imports only the packages {{packages}}, not "{{specifier}}" (eslint.config.js LAYERS)',
      nowhere: '{{file}} imports {{target}}, which is in no layer (eslint.config.js LAYERS)',
      unplaced: '{{file}} is in no layer: place its folder in eslint.config.js LAYERS',
      dynamic: '{{file}} is in layer {{layer}}, which may not import a computed module name',
    },
  },
  create(context) {
    const layers = context.options[0].layers;
    /** The layer whose folder holds path most closely (a folder nested in another's wins). */
    const layerOf = (path) => {
      let found;
      for (const layer of layers) for (const dir of layer.dirs) if ((path === dir || path.startsWith(`${dir}/`)) && (!found || dir.length > found.dir.length)) found = { layer, dir };
      return found?.layer;
    };
    const file = repoPath(context.filename);
    if (file === null) return {};
    const own = layerOf(file);
    if (!own) {
      // only src/ is layered: tests, benches and scripts may import anything
      if (!file.startsWith('src/')) return {};
      return { Program: (node) => context.report({ node, messageId: 'unplaced', data: { file } }) };
    }
    const allowedModules = new Set((own.modules ?? []).map(withoutExtension));
    const allowed = [own.name, ...own.imports, ...(own.modules ?? []), ...(own.packages ?? []).map((p) => `package ${p}`)].join(', ');
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') {
        if (own.packages) context.report({ node, messageId: 'dynamic', data: { file, layer: own.name } });
        return;
      }
      if (!specifier.startsWith('.') && !isAbsolute(specifier)) {
        if (own.packages && !own.packages.some((p) => specifier === p || specifier.startsWith(`${p}/`))) {
          context.report({ node, messageId: 'package', data: { file, layer: own.name, packages: own.packages.join(', '), specifier } });
        }
        return;
      }
      const target = repoPath(resolve(dirname(context.filename), specifier));
      const targetLayer = target === null ? undefined : layerOf(target);
      if (targetLayer === own || (targetLayer && own.imports.includes(targetLayer.name)) || (target !== null && allowedModules.has(withoutExtension(target)))) return;
      if (!targetLayer) context.report({ node, messageId: 'nowhere', data: { file, target: target ?? specifier } });
      else context.report({ node, messageId: 'forbidden', data: { file, layer: own.name, target, targetLayer: targetLayer.name, allowed } });
    };
    const literal = (node) => (node && node.type === 'Literal' ? node.value : undefined);
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => check(node.source, literal(node.source)),
      // `type T = import('../x.js').T` and `import x = require('../x.js')`: types couple layers as much as values
      TSImportType: (node) => check(node, literal(node.source ?? node.argument?.literal)),
      TSExternalModuleReference: (node) => check(node.expression, literal(node.expression)),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length === 1) check(node.arguments[0], literal(node.arguments[0]));
      },
    };
  },
};

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
    files: ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    plugins: { regent: { rules: { layers: layersRule } } },
    rules: { 'regent/layers': ['error', { layers: LAYERS }] },
  },
  {
    files: ['machines/**/*.ts', 'projections/**/*.ts', 'migrations/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'Date', message: 'time arrives on the stimulus, never from a clock' }, { name: 'setTimeout', message: 'no timers in deciders' }, { name: 'setInterval', message: 'no timers in deciders' }, { name: 'fetch', message: 'no I/O in deciders' }, { name: 'process', message: 'no environment in deciders' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'no randomness in deciders' }],
    },
  },
);
