/**
 * Layering.
 *
 * Issue 18: the audit code serves the web, the CLI and tests without the command line, so nothing under src/audit
 * imports src/cli — static imports, `import type`, re-exports and dynamic `import()` alike. Reads every source file
 * under src/audit and resolves each import specifier.
 *
 * Issue 25: the layer fence of eslint.config.js (`regent/layers`, an allow-list per layer). Each case lints a probe
 * file's text with the repository's own config, so a fence that stopped reporting — a layer dropped from the map, a
 * pattern that no longer matches, an import form the rule does not see — fails here, not silently in review.
 */
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const AUDIT = join(ROOT, 'src/audit');
const CLI = join(ROOT, 'src/cli');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(?:[cm]?[jt]s|tsx)$/.test(entry.name) ? [path] : [];
  });

/** Every module specifier a file names: import/export … from, import type, import(), require(). */
export const specifiersOf = (text: string): string[] => ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);

/** The specifiers of `file` that resolve into src/cli (a relative path into it, or an absolute one). */
const cliImports = (file: string, text: string): string[] =>
  specifiersOf(text).filter((specifier) => {
    if (!specifier.startsWith('.') && !specifier.startsWith('/')) return /(^|\/)src\/cli(\/|$)/.test(specifier);
    const target = resolve(dirname(file), specifier);
    return target === CLI || target.startsWith(CLI + sep);
  });

describe('audit layering: src/audit does not import src/cli', () => {
  it('the check sees every kind of import (so an empty result means something)', () => {
    const file = join(AUDIT, 'web/example.ts');
    const text = [
      "import { a } from '../../cli/context.js';",
      "import type { B } from '../../cli/errors.js';",
      "export { c } from '../../cli/format.js';",
      "const d = await import('../../cli/commands/start.js');",
      "import { e } from '../../store/open-existing.js';",
    ].join('\n');
    expect(cliImports(file, text)).to.deep.equal(['../../cli/context.js', '../../cli/errors.js', '../../cli/format.js', '../../cli/commands/start.js']);
  });

  it('no file under src/audit imports anything under src/cli', () => {
    const files = sourceFiles(AUDIT);
    expect(files.length).to.be.greaterThan(10);
    const offending = files.flatMap((file) => cliImports(file, readFileSync(file, 'utf8')).map((specifier) => `${relative(ROOT, file)} imports ${specifier}`));
    expect(offending, 'move what both need below both (src/store/open-existing.ts, src/machine-registry/, src/errors/)').to.deep.equal([]);
    // The scan did read imports: commands.ts opens the store through the shared module.
    expect(specifiersOf(readFileSync(join(AUDIT, 'commands.ts'), 'utf8'))).to.include('../store/open-existing.js');
  });
});

// ─── issue 25: the layer fence ─────────────────────────────────────────────────────────────────────────────────────

interface Layer {
  name: string;
  dirs: string[];
  imports: string[];
  packages?: string[];
  modules?: string[];
}

/** Only the fence's rule runs: the cases are about it, and other rules' findings on a probe are noise. */
const eslint = new ESLint({ cwd: ROOT, ruleFilter: ({ ruleId }) => ruleId === 'regent/layers' });

/** What regent/layers says about `text` as if it were the file `file` (a repository path; the file need not exist). */
const fence = async (file: string, text: string): Promise<string[]> => {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
};

/** The layer map as the config hands it to the rule (read back, so the test checks what lint enforces). */
const layers = async (): Promise<Layer[]> => {
  const config = (await eslint.calculateConfigForFile(join(ROOT, 'src/engine/engine.ts'))) as { rules: Record<string, [unknown, { layers: Layer[] }]> };
  const setting = config.rules['regent/layers'];
  expect(setting, 'regent/layers is configured for src/').to.not.equal(undefined);
  return setting![1].layers;
};

/** Probe cases: a file in a layer, one import it makes, and whether the fence must refuse it. */
const CASES: { title: string; file: string; specifier: string; refused: boolean }[] = [
  // deciders: xstate, io-ts, fp-ts, each other and the named pure modules — nothing else
  { title: 'a machine importing an event store', file: 'machines/probe.ts', specifier: '../src/store/port.js', refused: true },
  { title: 'a machine importing the engine', file: 'machines/probe.ts', specifier: '../src/engine/engine.js', refused: true },
  { title: 'a machine importing src/nova (the cycle issue 25 removed)', file: 'machines/nova-upgrade.ts', specifier: '../src/nova/release.js', refused: true },
  { title: 'a machine importing src/app', file: 'machines/server-rebuild/probe.ts', specifier: '../../src/app/control-plane.js', refused: true },
  { title: 'a machine importing a resource codec that is not named', file: 'machines/probe.ts', specifier: '../src/resources/region.js', refused: true },
  { title: 'a machine importing node:fs', file: 'machines/probe.ts', specifier: 'node:fs', refused: true },
  { title: 'a machine importing axios', file: 'machines/probe.ts', specifier: 'axios', refused: true },
  { title: 'a projection importing the provider', file: 'projections/probe.ts', specifier: '../src/provider/volumes.js', refused: true },
  { title: 'a projection importing src/status', file: 'projections/probe.ts', specifier: '../src/status/runner.js', refused: true },
  { title: 'a projection importing src/observability', file: 'projections/probe.ts', specifier: '../src/observability/metrics.js', refused: true },
  { title: 'a projection importing src/machine-registry', file: 'projections/probe.ts', specifier: '../src/machine-registry/index.js', refused: true },
  { title: 'an upcaster importing the engine', file: 'migrations/probe.ts', specifier: '../src/engine/engine.js', refused: true },
  { title: 'an upcaster importing uuid', file: 'migrations/probe.ts', specifier: 'uuid', refused: true },
  { title: 'a machine importing xstate', file: 'machines/probe.ts', specifier: 'xstate', refused: false },
  { title: 'a machine importing io-ts', file: 'machines/probe.ts', specifier: 'io-ts', refused: false },
  { title: 'a machine importing fp-ts by subpath', file: 'machines/probe.ts', specifier: 'fp-ts/lib/Either.js', refused: false },
  { title: 'a machine importing the named envelope module', file: 'machines/probe.ts', specifier: '../src/events/envelope.js', refused: false },
  { title: 'a machine importing machines/nova/', file: 'machines/nova-upgrade.ts', specifier: './nova/release.js', refused: false },
  { title: 'a projection importing a machine', file: 'projections/probe.ts', specifier: '../machines/nova-upgrade.js', refused: false },
  { title: 'a projection importing the named Server codec', file: 'projections/probe.ts', specifier: '../src/resources/server.js', refused: false },
  { title: 'an upcaster importing the envelope', file: 'migrations/probe.ts', specifier: '../src/events/envelope.js', refused: false },
  // the lower layers import nothing above them
  { title: 'the resource source importing the provider (the old volume-classes command)', file: 'src/kube/cli/volume-classes.ts', specifier: '../../provider/inventory/volume-classes.js', refused: true },
  { title: 'the resource source importing a machine', file: 'src/kube/probe.ts', specifier: '../../machines/lifecycle.js', refused: true },
  { title: 'the resource source importing the CLI', file: 'src/kube/cli/probe.ts', specifier: '../../cli/errors.js', refused: true },
  { title: 'an event store importing the engine', file: 'src/store/probe.ts', specifier: '../engine/engine.js', refused: true },
  { title: 'an event store importing a projection', file: 'src/store/sqlite/probe.ts', specifier: '../../../projections/conditions.js', refused: true },
  { title: 'an OpenStack client importing the provider', file: 'src/openstack/probe.ts', specifier: '../provider/volumes.js', refused: true },
  { title: 'an OpenStack client importing src/nova', file: 'src/openstack/nova/probe.ts', specifier: '../../nova/release.js', refused: true },
  { title: 'the events module importing an event store', file: 'src/events/probe.ts', specifier: '../store/port.js', refused: true },
  { title: 'the events module importing the machine registry', file: 'src/events/probe.ts', specifier: '../machine-registry/index.js', refused: true },
  { title: 'a resource codec importing the resource source', file: 'src/resources/probe.ts', specifier: '../kube/port.js', refused: true },
  { title: 'a resource codec importing src/app', file: 'src/resources/codec/probe.ts', specifier: '../../app/control-plane.js', refused: true },
  { title: 'an event store importing the envelope', file: 'src/store/probe.ts', specifier: '../events/envelope.js', refused: false },
  { title: 'the resource source importing the resource codecs', file: 'src/kube/probe.ts', specifier: '../resources/index.js', refused: false },
  { title: 'an OpenStack client importing the logger', file: 'src/openstack/probe.ts', specifier: '../log/logger.js', refused: false },
  // the layers above: placed in the map, so they too import only downwards
  { title: 'the engine importing the provider', file: 'src/engine/probe.ts', specifier: '../provider/volumes.js', refused: true },
  { title: 'the machine registry importing src/status', file: 'src/machine-registry/probe.ts', specifier: '../status/runner.js', refused: true },
  { title: 'src/nova importing a controller', file: 'src/nova/probe.ts', specifier: '../controllers/nova/reconcile.js', refused: true },
  { title: 'the provider importing src/app', file: 'src/provider/probe.ts', specifier: '../app/control-plane.js', refused: true },
  { title: 'the simulator importing the engine', file: 'src/simulator/probe.ts', specifier: '../engine/engine.js', refused: true },
  { title: 'src/nova importing the Job vocabulary below it', file: 'src/nova/jobs/probe.ts', specifier: '../../../machines/nova/jobs.js', refused: false },
  { title: 'a controller importing the provider', file: 'src/controllers/probe.ts', specifier: '../provider/volumes.js', refused: false },
  { title: 'the CLI importing the provider (the volume-classes command where it now lives)', file: 'src/cli/commands/get-volume-classes.ts', specifier: '../../provider/inventory/volume-classes.js', refused: false },
  { title: 'the app starting the simulator', file: 'src/app/probe.ts', specifier: '../simulator/index.js', refused: false },
];

describe('layer fence (issue 25): eslint.config.js regent/layers is an allow-list per layer', function () {
  // the first lint loads the config and the TypeScript parser: seconds on a busy 2-core machine
  this.timeout(60_000);

  for (const c of CASES) {
    it(`${c.refused ? 'refuses' : 'allows'} ${c.title} (${c.file} → ${c.specifier})`, async () => {
      const found = await fence(c.file, `import { probe } from '${c.specifier}';\nexport const used = probe;\n`);
      if (c.refused) expect(found, 'one report, from the fence').to.have.length(1).and.to.satisfy((ms: string[]) => ms[0]!.startsWith('regent/layers: '));
      else expect(found).to.deep.equal([]);
    });
  }

  it('sees every form of import: import type, export from, export *, import(), import() types, import = require, require()', async () => {
    const forms = [
      "import type { A } from '../src/store/port.js';",
      "export { b } from '../src/store/port.js';",
      "export * from '../src/store/port.js';",
      "export const c = await import('../src/store/port.js');",
      "export type D = import('../src/store/port.js').EventStore;",
      "import e = require('../src/store/port.js');",
      "export const f = require('../src/store/port.js');",
    ];
    for (const form of forms) expect(await fence('machines/probe.ts', `${form}\nexport type Keep = A;\nexport const keep = e;\n`), form).to.satisfy((ms: string[]) => ms.some((m) => m.startsWith('regent/layers: ') && m.includes('src/store/port.js')));
  });

  it('refuses a module name a decider computes (what it loads cannot be checked)', async () => {
    const found = await fence('machines/probe.ts', "const name = 'node:fs';\nexport const m = await import(name);\n");
    expect(found).to.have.length(1);
    expect(found[0]).to.include('computed module name');
  });

  it('refuses a file whose folder is in no layer, and an import of one', async () => {
    expect(await fence('src/somewhere-new/probe.ts', 'export const x = 1;\n')).to.deep.equal(['regent/layers: src/somewhere-new/probe.ts is in no layer: place its folder in eslint.config.js LAYERS']);
    const found = await fence('src/controllers/probe.ts', "import { x } from '../somewhere-new/probe.js';\nexport const y = x;\n");
    expect(found).to.have.length(1);
    expect(found[0]).to.include('which is in no layer');
  });

  it('leaves files outside src/ and the decider folders alone (tests may import anything)', async () => {
    expect(await fence('test/probe.test.ts', "import { x } from '../src/app/control-plane.js';\nexport const y = x;\n")).to.deep.equal([]);
  });

  it('the map places every folder of src/ and the three decider folders in exactly one layer', async () => {
    const map = await layers();
    const placed = map.flatMap((l) => l.dirs);
    const folders = [...readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `src/${e.name}`), 'machines', 'projections', 'migrations'];
    for (const folder of folders) expect(placed.filter((d) => d === folder), folder).to.have.length(1);
    // every named layer exists, and the lower layers' allow-lists name nothing above them
    const names = map.map((l) => l.name);
    for (const layer of map) for (const name of layer.imports) expect(names, `${layer.name} imports ${name}`).to.include(name);
    const rank = (name: string) => names.indexOf(name);
    for (const dir of ['src/store', 'src/openstack', 'src/kube', 'src/events', 'src/resources']) {
      const layer = map.find((l) => l.dirs.includes(dir))!;
      for (const name of layer.imports) expect(rank(name), `${dir} may import ${name}`).to.be.lessThan(rank(layer.name));
    }
    const deciders = map.find((l) => l.dirs.includes('machines'))!;
    expect(deciders.dirs).to.have.members(['machines', 'projections', 'migrations']);
    expect(deciders.imports, 'deciders import other layers only through named modules').to.deep.equal([]);
    expect(deciders.packages).to.have.members(['xstate', 'io-ts', 'fp-ts']);
  });

  it('every module the deciders may import by name exists and imports no package a decider may not', async () => {
    const deciders = (await layers()).find((l) => l.dirs.includes('machines'))!;
    expect(deciders.modules).to.have.length.greaterThan(0);
    for (const module of deciders.modules!) {
      expect(existsSync(join(ROOT, module)), module).to.equal(true);
      const packages = specifiersOf(readFileSync(join(ROOT, module), 'utf8')).filter((s) => !s.startsWith('.'));
      for (const p of packages) expect(deciders.packages!.some((allowed) => p === allowed || p.startsWith(`${allowed}/`)), `${module} imports ${p}`).to.equal(true);
    }
  });

  it('the files issue 25 moved lint clean under the fence', async () => {
    const files = ['machines/nova-upgrade.ts', 'machines/nova/release.ts', 'machines/nova/jobs.ts', 'src/nova/jobs/render.ts', 'src/cli/commands/get-volume-classes.ts', 'src/kube/cli'];
    const results = await eslint.lintFiles(files.map((f) => join(ROOT, f)));
    expect(results.length).to.be.greaterThan(files.length);
    expect(results.flatMap((r) => r.messages.map((m) => `${relative(ROOT, r.filePath)}: ${m.message}`))).to.deep.equal([]);
  });
});
