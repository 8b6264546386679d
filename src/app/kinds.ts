/**
 * The kind table: every kind the control plane serves, one line each (issue 25). A kind's wiring lives in its own
 * folder (src/controllers/<kind>/wiring.ts: streams, wakes, status, controller, handlers); startControlPlane loops
 * over this table, the status runner takes the renderers from it, the stream-owner map its stream prefixes, the wake
 * graph its rules. Kinds of src/resources that are not listed here get the "no controller yet" status.
 */
import type { KindName } from '../resources/index.js';
import type { KindWiring } from '../controllers/kind.js';
import type { StatusRenderer } from '../status/renderer.js';
import { StreamOwners } from '../controllers/stream-owners.js';
import { regionWiring } from '../controllers/region/wiring.js';
import { identityWiring } from '../controllers/identity/wiring.js';
import { networkWiring } from '../controllers/network/wiring.js';
import { securityGroupWiring } from '../controllers/security-group/wiring.js';
import { sshCertificateAuthorityWiring } from '../controllers/ssh-certificate-authority/wiring.js';
import { serverWiring } from '../controllers/server/wiring.js';
import { volumeWiring } from '../controllers/volume/wiring.js';
import { loadBalancerWiring } from '../controllers/load-balancer/wiring.js';
import { novaWiring } from '../controllers/nova/wiring.js';
import { novaComputeWiring } from '../controllers/nova-compute/wiring.js';
import { workloadClusterWiring } from '../controllers/workload-cluster/wiring.js';
import { workloadMachineWiring } from '../controllers/workload-machine/wiring.js';

export interface KindTableOptions {
  /** The Nova monitor's poll interval (`--monitor-interval`). */
  monitorIntervalMs?: number;
}

export const kindTable = (options: KindTableOptions = {}): readonly KindWiring[] => [
  regionWiring,
  identityWiring,
  networkWiring,
  securityGroupWiring,
  sshCertificateAuthorityWiring,
  serverWiring(options),
  volumeWiring,
  loadBalancerWiring,
  novaWiring,
  novaComputeWiring,
  workloadClusterWiring,
  workloadMachineWiring,
];

/** The kinds with a controller (and so, but for Nova, a finalizer): what RBAC must let the control plane patch. */
export const servedKinds = (table: readonly KindWiring[] = kindTable()): KindName[] => table.filter((w) => w.build !== undefined).map((w) => w.kind);

/** Each kind's status renderer, for the status runner. */
export const statusRenderers = (table: readonly KindWiring[] = kindTable(), only?: readonly KindName[]): Partial<Record<KindName, StatusRenderer>> =>
  Object.fromEntries(table.filter((w) => w.status && (only === undefined || only.includes(w.kind))).map((w) => [w.kind, w.status as StatusRenderer]));

/** The stream-owner map of a table's kinds; `exists` resolves a prefix several kinds share. */
export const streamOwnersOf = (table: readonly KindWiring[], exists: (kind: KindName, uid: string) => boolean): StreamOwners => new StreamOwners(table.flatMap((w) => w.streams), exists);

/**
 * The kind table's parts a status runner needs, for a runner started on its own (tests, tools): the renderers of
 * `only` (default every kind) and the stream-owner map. The runner reads only the uid an owner names, so a prefix
 * several kinds share needs no lookup here.
 */
export const statusRunnerParts = (only?: readonly KindName[]): { renderers: Partial<Record<KindName, StatusRenderer>>; ownerOf: (stream: string) => { kind: KindName; uid: string } | undefined } => {
  const table = kindTable();
  const owners = streamOwnersOf(table, () => true);
  return { renderers: statusRenderers(table, only), ownerOf: (stream) => owners.ownerOf(stream) };
};
