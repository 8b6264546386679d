/**
 * The pool's Nodes on Kubernetes (nova-operator.md, "reconcileNovaComputeNodes"): an uncached reader, so no
 * cluster-wide Node informer starts on an install whose RBAC is namespace-scoped, reading metadata only — a node's
 * name, labels and the custom-traits annotation are all the rules use.
 *
 * - list: GET /api/v1/nodes?labelSelector=k=v,… (keys sorted; none for an empty selector, which matches every Node),
 *   asking for a PartialObjectMetadataList (Accept `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`):
 *   the API server then sends no spec or status, which on a large cluster is most of the bytes. Paged by 500
 *   (`limit`/`continue`), so one answer stays bounded.
 * - get: GET /api/v1/nodes/<name> as PartialObjectMetadata; 404 is undefined (the node is gone: it counts as leaving).
 *
 * An API server that ignores the Accept parameters answers a full NodeList: only metadata is kept either way.
 * Every other failure is ComputeClusterError with the HTTP status: 403 is NodesForbidden for the step.
 */
import { CoreV1Api, setHeaderOptions, type KubeConfig, type V1ObjectMeta } from '@kubernetes/client-node';
import { apiCodeOf } from '../../kube-api-error.js';
import type { NodeMeta, NodeReader } from '../port.js';
import { clusterError, labelSelectorOf } from './common.js';

export const PARTIAL_METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
export const PARTIAL_METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const PAGE = 500;

const AS_LIST = setHeaderOptions('Accept', PARTIAL_METADATA_LIST);
const AS_ONE = setHeaderOptions('Accept', PARTIAL_METADATA);

const nodeMeta = (metadata: V1ObjectMeta | undefined): NodeMeta | undefined =>
  metadata?.name === undefined ? undefined : { name: metadata.name, labels: { ...(metadata.labels ?? {}) }, annotations: { ...(metadata.annotations ?? {}) } };

export class KubernetesNodeReader implements NodeReader {
  private readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async list(selector: Readonly<Record<string, string>>): Promise<NodeMeta[]> {
    const labelSelector = labelSelectorOf(selector);
    const nodes: NodeMeta[] = [];
    let page: string | undefined;
    do {
      try {
        const list = await this.core.listNode({ ...(labelSelector === undefined ? {} : { labelSelector }), limit: PAGE, ...(page === undefined ? {} : { _continue: page }) }, AS_LIST);
        for (const item of list.items ?? []) {
          const node = nodeMeta(item.metadata);
          if (node !== undefined) nodes.push(node);
        }
        page = list.metadata?._continue || undefined;
      } catch (error) {
        throw clusterError(error, `cannot list the Nodes${labelSelector === undefined ? '' : ` matching ${labelSelector}`}`);
      }
    } while (page !== undefined);
    return nodes;
  }

  async get(name: string): Promise<NodeMeta | undefined> {
    try {
      return nodeMeta((await this.core.readNode({ name }, AS_ONE)).metadata);
    } catch (error) {
      if (apiCodeOf(error) === 404) return undefined;
      throw clusterError(error, `cannot read Node ${name}`);
    }
  }
}
