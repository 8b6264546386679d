/**
 * The example manifests applied on a first start (an empty resource store).
 *
 * The only code path of the control plane that writes resources (apply: get, create, update) and
 * registers a region: it runs only with examples (`regent start` by default, never the Deployment,
 * which passes --no-examples), so the RBAC the control plane is granted does not cover it
 * (test/deploy/rbac.test.ts follows the control plane's imports but not this module's).
 */
import { stampAuthor, type AuthorStamp } from '../resource-history/author.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyManifests, parseManifests } from '../kube/cli/manifests.js';
import type { Region } from '../resources/region.js';
import type { ResourceSource } from '../kube/port.js';
import { KINDS, KIND_NAMES, type InputOf } from '../resources/index.js';
import { registerRegion } from '../provider/regions/register.js';
import { cloudFromYaml } from '../openstack/keystone/clouds-config.js';
import { connect, connectAsUser } from '../openstack/session.js';
import type { CancelScope } from '../openstack/cancel.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import type { OpenStackTarget } from './openstack-target.js';

/** The examples are Regent's own first-start writes. */
const EXAMPLES_AUTHOR: AuthorStamp = { name: 'regent', channel: 'examples' };

export interface FirstStartExamples {
  dir: string;
  /** `--examples <dir>`: apply them to any cloud. Otherwise only to the simulator Regent started itself. */
  explicit: boolean;
  source: ResourceSource;
  target: OpenStackTarget;
  /** True when the simulator is Regent's own (not one a test passed in). */
  ownSimulator: boolean;
  /** The Region name the built-in simulator is registered as (the one the examples name). */
  regionName: string;
  logger: Logger;
  cancel: CancelScope;
}


export const applyFirstStartExamples = async (options: FirstStartExamples): Promise<void> => {
  const { dir, explicit, source, target, ownSimulator, logger, cancel } = options;
  const empty = (await Promise.all(KIND_NAMES.map((k) => source.list(k)))).every((l) => l.items.length === 0);
  if (!empty) return;
  // Examples create servers: never in a cloud the operator configured unless asked by name.
  if (!explicit && !ownSimulator) {
    logger.info('examples not applied: the cloud is not the built-in simulator (pass --examples <dir> to apply them anyway)', { dir, openstack: target.description });
    return;
  }
  // With its own simulator Regent registers the region in it, as an operator would with
  // `regent region register` (a managed domain, credentials in a Secret, the Region resource), so the
  // example Identity gets its own project; the example Region names a real Keystone instead.
  const skip = new Set<string>();
  if (ownSimulator && !explicit && target.simulator) {
    const adminCloud = cloudFromYaml(target.simulator.cloudsYaml(), 'sim-admin', 'the simulator');
    const report = await registerRegion(
      { name: options.regionName, cloud: adminCloud, endpoint: adminCloud.authUrl, dryRun: false },
      { source, connect: (cloud) => connect(cloud, { logger, cancel }), connectAsUser: (cloud, login) => connectAsUser(cloud, login, { logger, cancel }) },
    );
    logger.info('registered the example region in the built-in simulator', { region: `${report.region.namespace}/${report.region.name}`, domain: report.domain.name });
    await adoptExampleInventory(source, join(dir, 'region.yaml'), report.region, logger);
    skip.add('region.yaml');
  }
  // in dependency order (KINDS: a CA before the Servers that name it, a Network before its Servers), so no
  // pass waits on an object the next file would have created; a file of no known kind last, by name
  const rank = (file: string) => {
    const kind = /^kind:\s*(\S+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1];
    const at = KINDS.findIndex((k) => k.kind === kind);
    return at === -1 ? KINDS.length : at;
  };
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && !skip.has(f)).sort();
  for (const file of files.sort((a, b) => rank(a) - rank(b))) {
    const outcomes = await applyManifests(source, readFileSync(join(dir, file), 'utf8'), { author: EXAMPLES_AUTHOR });
    logger.info('applied example', { file, objects: outcomes.map((o) => `${o.kind}/${o.name}`) });
  }
};

/** The inventory settings of the example Region (`region.yaml`) Regent acts on or reports. */
const INVENTORY_FIELDS = ['defaultArchitecture', 'compute', 'network', 'blockStorage'] as const;

/**
 * The registered Region gets the example Region's inventory settings (its flavor selector, its
 * VolumeClass allowlist naming the simulator's `ssd` type), so the example Volume's class is exported
 * as it would be in a cloud whose operator curated it. Endpoint, credentials and domain stay the
 * registration's.
 */
const adoptExampleInventory = async (source: ResourceSource, file: string, ref: { namespace: string; name: string }, logger: Logger): Promise<void> => {
  let example: Region | undefined;
  try {
    example = parseManifests(readFileSync(file, 'utf8'), { file }).find((o) => o.kind === 'Region') as Region | undefined;
  } catch (error) {
    // the region still works without them: its VolumeClasses and external network are simply not exported
    logger.warn('the example region.yaml could not be read: the registered region gets no inventory settings', { file, ...describeError(error) });
    return;
  }
  const registered = (await source.get('Region', ref.namespace, ref.name)) as Region | undefined;
  if (!example || !registered) return;
  const openstack: Record<string, unknown> = { ...registered.spec.openstack };
  for (const field of INVENTORY_FIELDS) {
    const value = (example.spec.openstack as Record<string, unknown>)[field];
    if (value !== undefined) openstack[field] = value;
  }
  const region: InputOf<'Region'> = { apiVersion: registered.apiVersion, kind: 'Region', metadata: { name: ref.name, namespace: ref.namespace }, spec: { ...registered.spec, openstack } as Region['spec'] };
  await source.apply(stampAuthor(region, EXAMPLES_AUTHOR));
  logger.info('the example region\'s inventory settings were applied to the registered region', { region: `${ref.namespace}/${ref.name}`, fields: INVENTORY_FIELDS.filter((f) => (example?.spec.openstack as Record<string, unknown>)[f] !== undefined) });
};
