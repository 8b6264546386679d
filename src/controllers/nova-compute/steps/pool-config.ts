/**
 * PoolConfig (nova-operator.md, "reconcileNovaComputeConfig"; condition ConfigReady, and the informational
 * ExtraConfigHealthy outside Ready). Reads the contract Secret `<nova>-compute-config` in the pool's namespace, waits
 * for it (WaitingForComputeConfig) and for its three keys (ComputeConfigIncomplete), both on 15 s; renders
 * compute-pool.conf with spec.extraConfig merged over it into the immutable `{name}-config-<hash>` ConfigMap (the
 * history pruned to the three newest by the port), and hashes the Secret's key/value pairs for the pod template
 * (`nova.c5c3.io/compute-config-hash`), so a changed contract rolls the pool. No value of the Secret is kept.
 *
 * ExtraConfigHealthy: False / OwnedKeyOverridden when extraConfig sets a key the node's process owns
 * (`[DEFAULT] host`, `[DEFAULT] transport_url`: the DaemonSet's and the contract's); the file still carries it, but
 * the process's own setting wins. A section, key or value with a control character is refused (ConfigError, 30 s)
 * and nothing is published.
 */
import { createHash } from 'node:crypto';
import { REQUIRED_CONTRACT_KEYS } from '../../../nova/config/compute.js';
import { iniProblems, normalSection, sectionLabel, writeIni, type IniDocument } from '../../../nova/config/ini.js';
import { configHash, mergeNovaConf } from '../../../nova/config/render.js';
import { POOL_CONFIG_FILE, poolConfigName } from '../../../nova/compute/port.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';

const CONDITION = 'ConfigReady';
const HEALTH = 'ExtraConfigHealthy';

/** What every node of a pool runs with unless extraConfig says otherwise. */
export const POOL_BASE: IniDocument = [
  ['DEFAULT', [['compute_driver', 'libvirt.LibvirtDriver']]],
  ['libvirt', [['virt_type', 'kvm']]],
  ['compute', [['consecutive_build_service_disable_threshold', '10']]],
];

/** Keys the node's process sets itself (the DaemonSet's host name, the contract's transport URL). */
const PROCESS_OWNED = [
  ['DEFAULT', 'host'],
  ['DEFAULT', 'transport_url'],
] as const;

/** The contract's digest: every key and value, in key order, length-prefixed (no value is kept). */
export const contractDigest = (data: Readonly<Record<string, string>>): string => {
  const digest = createHash('sha256');
  for (const key of Object.keys(data).sort()) digest.update(`${key}\n${Buffer.byteLength(data[key]!)}\n`).update(data[key]!);
  return digest.digest('hex');
};

export type PoolConfigRender = { ok: true; name: string; files: Record<string, string>; overridden: string[] } | { ok: false; problems: string[] };

/** compute-pool.conf from the base and spec.extraConfig (pure). */
export const renderPoolConfig = (pool: string, extraConfig: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined): PoolConfigRender => {
  const document = mergeNovaConf(POOL_BASE, extraConfig ?? {});
  const problems = iniProblems(document).map((p) => p.message);
  if (problems.length > 0) return { ok: false, problems };
  const files = { [POOL_CONFIG_FILE]: writeIni(document) };
  const overridden = Object.entries(extraConfig ?? {}).flatMap(([section, keys]) =>
    Object.keys(keys)
      .filter((key) => PROCESS_OWNED.some(([s, k]) => normalSection(section) === s && key === k))
      .map((key) => sectionLabel(section, key)),
  );
  return { ok: true, name: poolConfigName(pool, configHash(files)), files, overridden };
};

const wait = (reason: string, message: string): StepReport => ({
  conditions: [{ type: CONDITION, status: 'False', reason, message }],
  outcome: requeue(NOVA_COMPUTE_REQUEUE_MS.secretPolling, `${CONDITION} ${reason}`),
});

export const poolConfigStep: NovaStep<NovaComputePass> = {
  name: 'PoolConfig',
  conditions: [CONDITION, HEALTH],
  async run(pass) {
    const { deps, ref, object, values } = pass;
    const name = values.contractSecret!;
    const secret = await deps.secrets.get(ref.namespace, name);
    if (!secret) return wait('WaitingForComputeConfig', `the contract Secret ${name} does not exist in ${ref.namespace}`);
    const missing = REQUIRED_CONTRACT_KEYS.filter((key) => !secret.data[key]);
    if (missing.length > 0) return wait('ComputeConfigIncomplete', `the contract Secret ${name} lacks ${missing.join(', ')}`);
    const render = renderPoolConfig(ref.name, object.spec.extraConfig);
    if (!render.ok) {
      return { conditions: [{ type: CONDITION, status: 'False', reason: 'ConfigError', message: `spec.extraConfig cannot be written: ${render.problems.join('; ')}` }], outcome: requeue(NOVA_COMPUTE_REQUEUE_MS.drainPolling, `${CONDITION} ConfigError`) };
    }
    try {
      await deps.cluster.workloads.publishConfig(ref.namespace, { name: ref.name, uid: ref.uid }, { name: render.name, files: render.files });
    } catch (error) {
      return { conditions: [{ type: CONDITION, status: 'False', reason: 'ConfigError', message: `publishing ${render.name} failed: ${(error as Error).message}` }], outcome: { kind: 'error', error } };
    }
    values.config = { name: render.name, files: render.files };
    values.contractHash = contractDigest(secret.data);
    const health: StepReport['conditions'][number] = render.overridden.length > 0
      ? { type: HEALTH, status: 'False', reason: 'OwnedKeyOverridden', message: `spec.extraConfig sets ${render.overridden.join(', ')}, which the node's process sets itself: the file carries it, the process's value wins` }
      : { type: HEALTH, status: 'True', reason: 'NoOwnedKeyOverridden', message: 'spec.extraConfig sets no key the node process owns' };
    return { conditions: [{ type: CONDITION, status: 'True', reason: 'ConfigPublished', message: `${POOL_CONFIG_FILE} published as ${render.name}; the contract ${name} is complete` }, health], outcome: continueLane };
  },
};
