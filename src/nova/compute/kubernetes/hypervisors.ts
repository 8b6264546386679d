/**
 * The kvm.cloud.sap/v1 Hypervisors on Kubernetes (nova-operator.md, "reconcileNovaComputeTraits"): cluster-scoped
 * objects of the hypervisor operator, read unstructured through CustomObjectsApi with no informer (nothing watches
 * Hypervisors: the step polls).
 *
 * get(name): GET /apis/kvm.cloud.sap/v1/hypervisors/<name>:
 *   2xx   found: customTraits from spec.customTraits, statusTraits the CUSTOM_ subset of status.traits
 *   403   forbidden (HypervisorsForbidden)
 *   404   the object is missing (NodesWithoutHypervisor) OR the kind is not served (HypervisorOperatorNotInstalled): the
 *         API server says which in the Status — a missing object's names it (`details.name`), an unknown resource
 *         type answers "the server could not find the requested resource" with no name. A 404 that names the object is
 *         missing at once; any other 404 is settled by the discovery GET of kvm.cloud.sap/v1 (the probe of
 *         src/nova/group/kubernetes.ts: 404, or a list without hypervisors, is notInstalled; a list with it means the
 *         object is missing; a 403 there is forbidden; any other failure throws).
 *   else  ComputeClusterError with the status.
 *
 * setCustomTraits(name, traits): a JSON merge patch `{spec: {customTraits: <sorted, deduplicated>}}` (Content-Type
 * `application/merge-patch+json`, set with setHeaderOptions because the client's default for PATCH is a JSON patch)
 * under the field manager `cobaltcore-operator` (HYPERVISOR_FIELD_OWNER): the hypervisor operator owns the field, and
 * a server-side apply by it must not see a conflict with a manager of ours. A merge patch replaces the list whole.
 */
import { CustomObjectsApi, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { apiCodeOf } from '../../kube-api-error.js';
import { capabilityFromError, capabilityFromList, type OptionalApi } from '../../group/kubernetes.js';
import { HYPERVISOR_FIELD_OWNER, type HypervisorRead, type Hypervisors } from '../port.js';
import { clusterError } from './common.js';

export const HYPERVISOR_GROUP = 'kvm.cloud.sap';
export const HYPERVISOR_VERSION = 'v1';
export const HYPERVISOR_PLURAL = 'hypervisors';
export const HYPERVISOR_API: OptionalApi = { title: 'the Hypervisor API of the hypervisor operator', group: HYPERVISOR_GROUP, version: HYPERVISOR_VERSION, resource: HYPERVISOR_PLURAL };
export const CUSTOM_TRAIT_PREFIX = 'CUSTOM_';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');
const AT = { group: HYPERVISOR_GROUP, version: HYPERVISOR_VERSION, plural: HYPERVISOR_PLURAL };

interface HypervisorLive {
  metadata?: { name?: string };
  spec?: { customTraits?: unknown };
  status?: { traits?: unknown };
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The Status body of a failed call, parsed (the client hands it over as a string or an object). */
const statusOf = (error: unknown): { message?: unknown; details?: { name?: unknown } } => {
  const body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { message?: unknown; details?: { name?: unknown } };
    } catch {
      return {};
    }
  }
  return typeof body === 'object' && body !== null ? (body as { message?: unknown; details?: { name?: unknown } }) : {};
};

export class KubernetesHypervisors implements Hypervisors {
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async get(name: string): Promise<HypervisorRead> {
    let live: HypervisorLive;
    try {
      live = (await this.custom.getClusterCustomObject({ ...AT, name })) as HypervisorLive;
    } catch (error) {
      const code = apiCodeOf(error);
      if (code === 403) return { kind: 'forbidden', message: clusterError(error, `cannot read Hypervisor ${name}`).message };
      if (code !== 404) throw clusterError(error, `cannot read Hypervisor ${name}`);
      if (statusOf(error).details?.name === name) return { kind: 'missing' };
      return this.notFound(name);
    }
    return {
      kind: 'found',
      hypervisor: {
        name: live.metadata?.name ?? name,
        customTraits: strings(live.spec?.customTraits),
        statusTraits: strings(live.status?.traits).filter((t) => t.startsWith(CUSTOM_TRAIT_PREFIX)),
      },
    };
  }

  async setCustomTraits(name: string, traits: readonly string[]): Promise<void> {
    const body = { spec: { customTraits: [...new Set(traits)].sort() } };
    try {
      await this.custom.patchClusterCustomObject({ ...AT, name, body, fieldManager: HYPERVISOR_FIELD_OWNER }, MERGE_PATCH);
    } catch (error) {
      throw clusterError(error, `cannot patch the custom traits of Hypervisor ${name}`);
    }
  }

  /** A 404 that does not name the object: is the kind served at all? */
  private async notFound(name: string): Promise<HypervisorRead> {
    const what = `cannot tell whether ${HYPERVISOR_API.title} (${HYPERVISOR_GROUP}/${HYPERVISOR_VERSION}) is served, reading Hypervisor ${name}`;
    let list;
    try {
      list = await this.custom.getAPIResources({ group: HYPERVISOR_GROUP, version: HYPERVISOR_VERSION });
    } catch (error) {
      const code = apiCodeOf(error);
      if (code === 403) return { kind: 'forbidden', message: clusterError(error, what).message };
      if (code !== 404) throw clusterError(error, what);
      const capability = capabilityFromError(HYPERVISOR_API, error);
      return { kind: 'notInstalled', message: capability.kind === 'notInstalled' ? capability.message : what };
    }
    const capability = capabilityFromList(HYPERVISOR_API, list);
    return capability.kind === 'notInstalled' ? { kind: 'notInstalled', message: capability.message } : { kind: 'missing' };
  }
}
