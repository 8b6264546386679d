/**
 * `regent plan -f <file|dir|->`: what Regent would do to the cloud for these manifests, before `apply` (docs/plan.md).
 *
 * Reads the event store (`--store`), the resource source (`--resources`) and the cloud, and writes nothing to any of
 * them (src/plan/). The cloud is the one the environment configures (OS_CLOUD / OS_*), else the built-in simulator of
 * the Regent running on the same ./data (its lock names it); a plan never starts a simulator of its own. That cloud
 * stands for the Region `region-one` (the built-in simulator) or `default` (OS_CLOUD), as it does for `regent serve`.
 *
 * A Nova or NovaCompute document is planned on the Nova runtime `regent serve` runs those kinds with, opened here as
 * the control plane opens it (src/app/nova-runtime.ts: on the embedded store the local Jobs, roles and configs under
 * the store's folder, on Kubernetes the cluster's), never started (no scheduler, no sweep, no watch), closed after;
 * the planner puts it behind its read-only guard. It is opened only when such a document is planned. On the embedded
 * store the local roles are observed, not run: their rollout is read from the process records of the Regent serving
 * the same ./data (src/nova/workloads/local.ts, `observeRecorded`). Caveat: a NovaCompute pool's local nova-compute
 * processes are still known only to the process that runs them (the audit pages' plan view, in `regent serve`, sees
 * them).
 *
 * Exit 0: no destructive decision; 2: at least one; 1: an error, a document `apply` would refuse, or a resource whose
 * plan failed. A usage error of the command line itself also exits 1 (not commander's 2: 2 means destructive here).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';
import type { ResourceSource } from '../../kube/port.js';
import type { Logger } from '../../log/logger.js';
import { UsageError } from '../errors.js';
import { withSource } from './with-source.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `-f` as the user gave it: a file, `-` (stdin), or a directory (its .yaml, .yml and .json files, sorted). */
const readManifests = (names: readonly string[]): Array<{ file: string; text: string }> =>
  names.flatMap((name) => {
    try {
      if (name !== '-' && statSync(name).isDirectory()) {
        const files = readdirSync(name).filter((f) => /\.(ya?ml|json)$/i.test(f)).sort();
        if (files.length === 0) throw new UsageError(`${name}: no .yaml, .yml or .json file in it`);
        return files.map((f) => ({ file: join(name, f), text: readFileSync(join(name, f), 'utf8') }));
      }
      return [{ file: name, text: readFileSync(name === '-' ? 0 : name, 'utf8') }];
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot read ${name}`);
    }
  });

/** `Kind/namespace/name` (or `Kind/name`, in default). */
const parseResource = async (text: string) => {
  const parts = text.split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) throw new UsageError(`--resource ${text}: expected Kind/namespace/name`);
  const { resolveKind } = await import('../../kube/kinds.js');
  let kind;
  try {
    kind = resolveKind(parts[0] as string);
  } catch (error) {
    throw new UsageError(`--resource ${text}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parts.length === 3 ? { kind, namespace: parts[1] as string, name: parts[2] as string } : { kind, namespace: 'default', name: parts[1] as string };
};

/** Whether a document the plan shows is of a kind that runs on the Nova runtime (then the command opens it). */
const plansNovaKinds = (documents: ReadonlyArray<{ input?: { kind: string } }>, kinds: readonly string[], only?: { kind: string }): boolean =>
  only ? kinds.includes(only.kind) : documents.some((d) => d.input !== undefined && kinds.includes(d.input.kind));

/**
 * The Nova runtime `regent serve` on the same stores runs the Nova kinds with (src/app/control-plane.ts): its folder
 * next to the sqlite event store, its namespace POD_NAMESPACE. Not started: nothing of it runs in the background.
 */
const openPlanNovaRuntime = async (source: ResourceSource, storeUrl: string, logger: Logger) => {
  const [{ openNovaRuntime }, { parseStoreUrl }, { tmpdir }] = await Promise.all([import('../../app/nova-runtime.js'), import('../../store/open.js'), import('node:os')]);
  const location = parseStoreUrl(storeUrl);
  const dataDir = location.kind === 'sqlite' ? dirname(location.path) : join(tmpdir(), `regent-${process.pid}`);
  return openNovaRuntime(source, { dataDir, env: process.env, logger, installNamespace: process.env.POD_NAMESPACE ?? 'default', observeRoles: true });
};

/** The cloud to observe: the environment's, or the running Regent's built-in simulator; never a new simulator. */
const planCloud = async (storeUrl: string) => {
  const [{ cloudConfigured }, { loadCloudConfig }, { cloudFromYaml }, sim, { parseStoreUrl }] = await Promise.all([
    import('../../app/openstack-target.js'),
    import('../../openstack/keystone/clouds-reader.js'),
    import('../../openstack/keystone/clouds-config.js'),
    import('../../simulator/index.js'),
    import('../../store/open.js'),
  ]);
  if (cloudConfigured()) return { cloud: await loadCloudConfig({ env: process.env }), regionName: 'default' };
  const location = parseStoreUrl(storeUrl);
  const statePath = location.kind === 'sqlite' ? join(dirname(location.path), 'simulator.json') : undefined;
  const owner = statePath ? sim.readSimStateOwner(statePath) : undefined;
  if (!owner || !sim.pidAlive(owner.pid)) {
    throw new UsageError(`no cloud to observe: set OS_CLOUD (or OS_AUTH_URL …), or plan next to a running Regent (npm start) whose built-in simulator${statePath ? ` (${statePath})` : ''} it reads`);
  }
  const url = new URL(owner.url);
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') throw new UsageError(`the simulator lock ${statePath ?? ''} names ${owner.url}, not a loopback simulator`);
  return { cloud: cloudFromYaml(sim.simulatorCloudsYaml(owner.url), 'sim-demo', `the simulator of pid ${owner.pid}`), regionName: 'region-one' };
};

export const registerPlan = (program: Command, globals: () => GlobalOptions) => {
  const command = program
    .command('plan')
    .description("what Regent would do to the cloud for these manifests, before it does it: each resource's next decisions, their rules and effects, DESTRUCTIVE ones flagged (exit 2), nothing written")
    .requiredOption('-f, --filename <file>', 'a manifest file or directory (repeatable; - for stdin)', collect)
    .option('--resources <url>', 'resource source (see apply)')
    .option('--resource <Kind/namespace/name>', 'plan only this resource')
    .option('--delete', "plan `regent delete` of each document's resource instead of its apply (the finalizers' cloud deletions)")
    .option('-o, --output <format>', 'table | json', 'table')
    .action(async (options: { filename: string[]; resources?: string; resource?: string; output: string; delete?: boolean }) => {
      try {
        if (!['table', 'json'].includes(options.output)) throw new UsageError(`-o ${options.output}: expected table or json`);
        const files = readManifests(options.filename);
        const only = options.resource === undefined ? undefined : await parseResource(options.resource);
        const [{ parseManifestFiles }, { plan, NOVA_RUNTIME_KINDS }, { exitCodeOf }, { planText }, { openExistingStore, storeUrlOf }, { connect }, { createLogger }, { EmbeddedResourceSource }] = await Promise.all([
          import('../../kube/cli/manifests.js'),
          import('../../plan/planner.js'),
          import('../../plan/report.js'),
          import('../../plan/text.js'),
          import('../context.js'),
          import('../../openstack/session.js'),
          import('../../log/logger.js'),
          import('../../kube/embedded/store.js'),
        ]);
        const documents = parseManifestFiles(files);
        const logger = createLogger();
        const { cloud, regionName } = await planCloud(storeUrlOf(globals()));
        const store = await openExistingStore(globals());
        try {
          await withSource(options, { create: false }, async (source) => {
            const session = await connect(cloud, { logger });
            const nova = plansNovaKinds(documents as ReadonlyArray<{ input?: { kind: string } }>, NOVA_RUNTIME_KINDS, only) ? await openPlanNovaRuntime(source, storeUrlOf(globals()), logger) : undefined;
            try {
              const result = await plan({
                store,
                source,
                documents,
                connect: (c) => connect(c, { logger }),
                processRegion: { name: regionName, cloud, session },
                ...(source instanceof EmbeddedResourceSource ? {} : { secretNamespace: process.env.POD_NAMESPACE ?? 'default' }),
                ...(only ? { only } : {}),
                ...(options.delete ? { deleting: true } : {}),
                ...(nova ? { nova } : {}),
                logger,
              });
              console.log(options.output === 'json' ? JSON.stringify(result, null, 2) : planText(result));
              process.exitCode = exitCodeOf(result);
            } finally {
              await nova?.close();
            }
          });
        } finally {
          await store.close();
        }
      } catch (error) {
        // exit 2 means "destructive" here: every failure of the command is 1
        const { describeFailure } = await import('../errors.js');
        process.stderr.write(`regent: ${describeFailure(error)}\n`);
        process.exitCode = 1;
      }
    });
  // commander's own usage errors (an unknown option, -f missing) exit 1 too: said once, by regent's error line
  command.configureOutput({ outputError: () => undefined }).showHelpAfterError(false);
  command.exitOverride((error) => {
    if (error.exitCode === 0) throw error;
    throw new Error(error.message.replace(/^error: /, ''));
  });
};
