/**
 * The Nova roles on Kubernetes (@kubernetes/client-node): apps/v1 Deployments `{nova}-{role}`, their v1 Services
 * (the API 8774, metadata 8775, the console proxy 6080) and the API's policy/v1 PodDisruptionBudget, rendered by
 * ./render.ts. Three duties:
 *
 * **ensure** (the workload steps, issue 26): one GET of the Deployment; created when absent, replaced (PUT with the
 * read's resourceVersion) when its `nova.c5c3.io/pod-template-hash` annotation, its Nova container's image or its
 * replicas differ from the template (an autoscaled role's replicas are its HPA's: neither compared nor overwritten), otherwise not written at all — a pass that changes nothing writes nothing, and
 * an unchanged template never rolls a pod. A replace keeps the live installed-release stamp. Before a Deployment is
 * written, the content-addressed config ConfigMap is created unless it exists (409 means the same files are there:
 * the Config step may have created it). The Service and the PDB are read and written the same way (a Service keeps
 * its clusterIP on a replace). The answer is judged from the Deployment as the API server returned it.
 *
 * **rollout** (the Database step during RollingUpdate): a role is rolled out exactly when, in this order (the
 * detail names the first one missing):
 * 1. its Nova container runs `image`. The Nova container is the one named `nova-<role>` when the pod template
 *    has one, otherwise the first container: a sidecar (a TLS proxy, a log shipper) runs an image of its own,
 *    so comparing every container would never read as rolled out; init containers are not compared either;
 * 2. the Deployment controller has observed the current spec (`status.observedGeneration >=
 *    metadata.generation`): until it has, every replica count below describes the previous template, and an
 *    upgrade would flip to Contracting on the old pods' counts;
 * 3. `updatedReplicas`, `readyReplicas` and `availableReplicas` all equal `spec.replicas` (default 1);
 * 4. `status.replicas` equals it too: an old pod still running still serves the old release, and the contract
 *    phase must not start under it.
 * A Deployment scaled to zero that runs `image` is rolled out (there is nothing left to roll). ensure judges the
 * same way, after checking that the Deployment carries the template's hash.
 *
 * **stampInstalledRelease**: a JSON merge patch of `spec.template.metadata.annotations` (Content-Type
 * `application/merge-patch+json`, set with setHeaderOptions because the client's default for PATCH is a JSON
 * patch), sent only when the annotation differs. A Deployment absent at the read or at the patch is 'absent'.
 *
 * **remove** deletes the Deployment (propagation Background, so its ReplicaSets and pods go with it), the Service and
 * the PDB; **endpoint** is the API Service's cluster-local URL, read off the Service.
 *
 * Client failures become WorkloadError with the HTTP status (none when the API server is unreachable).
 */
import { AppsV1Api, CoreV1Api, PolicyV1Api, setHeaderOptions, type KubeConfig, type V1Deployment, type V1PodDisruptionBudget, type V1Service } from '@kubernetes/client-node';
import { INSTALLED_RELEASE_ANNOTATION, ROLE_PORTS, WorkloadError, deploymentName, type NovaOwner, type NovaRole, type RoleRollout, type RoleTemplate, type RoleWorkloads } from './port.js';
import { withOwnership, type Ownership } from '../ownership.js';
import { TEMPLATE_HASH_ANNOTATION, configMapBody, deploymentBody, novaContainerName, podDisruptionBudgetBody, serviceBody, serviceURL } from './render.js';

export { novaContainerName };

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');

export interface KubernetesWorkloadsOptions extends Ownership {
  /** The cluster the Nova's namespace lives on. */
  readonly kubeConfig: KubeConfig;
}

const novaContainer = (deployment: V1Deployment, role: NovaRole) => {
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  return containers.find((c) => c.name === novaContainerName(role)) ?? containers[0];
};

/** What is still rolling, in words; undefined when the Deployment is rolled out onto `image`. */
const stillRolling = (deployment: V1Deployment, role: NovaRole, image: string): string | undefined => {
  const nova = novaContainer(deployment, role);
  if (nova === undefined) return 'the pod template has no containers';
  if (nova.image !== image) return `container ${nova.name} runs ${nova.image ?? 'no image'}, not ${image}`;
  const generation = deployment.metadata?.generation;
  const observed = deployment.status?.observedGeneration ?? 0;
  if (generation !== undefined && observed < generation) return `controller has not observed generation ${generation}`;
  const wanted = deployment.spec?.replicas ?? 1;
  const status = deployment.status ?? {};
  const counts: Array<[number, string]> = [
    [status.updatedReplicas ?? 0, 'updated'],
    [status.readyReplicas ?? 0, 'ready'],
    [status.availableReplicas ?? 0, 'available'],
  ];
  for (const [count, what] of counts) if (count !== wanted) return `${count} of ${wanted} replicas ${what}`;
  const running = status.replicas ?? 0;
  if (running !== wanted) return `${running} replicas running, ${wanted} wanted: old pods are still there`;
  return undefined;
};

const rolledOutDetail = (deployment: V1Deployment, image: string): string => {
  const replicas = deployment.spec?.replicas ?? 1;
  return `rolled out: ${replicas} replica${replicas === 1 ? '' : 's'} on ${image}`;
};

const statusOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
};

/** The API server's Status message, or the client's own message when there is no HTTP answer. */
const messageOf = (error: unknown): string => {
  const { body, message } = error as { body?: unknown; message?: unknown };
  if (typeof body === 'string' && body !== '') {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === 'string') return parsed.message;
    } catch {
      return body;
    }
  }
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') return (body as { message: string }).message;
  return String(message ?? error);
};

const fail = (verb: string, kind: string, namespace: string, name: string, error: unknown): WorkloadError => {
  const status = statusOf(error);
  const prefix = `cannot ${verb} ${kind} ${name} in ${namespace}`;
  return status === undefined
    ? new WorkloadError(`${prefix}: the Kubernetes API is unreachable: ${messageOf(error)}`, undefined)
    : new WorkloadError(`${prefix}: HTTP ${status}: ${messageOf(error)}`, status);
};

/** Runs a read; a 404 is undefined. */
const orAbsent = async <T>(read: () => Promise<T>, kind: string, namespace: string, name: string): Promise<T | undefined> => {
  try {
    return await read();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw fail('read', kind, namespace, name, error);
  }
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export class KubernetesWorkloads implements RoleWorkloads {
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly policy: PolicyV1Api;
  private readonly ownership: Ownership;

  constructor(options: KubernetesWorkloadsOptions) {
    this.ownership = { remote: options.remote === true };
    this.apps = options.kubeConfig.makeApiClient(AppsV1Api);
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.policy = options.kubeConfig.makeApiClient(PolicyV1Api);
  }

  async rollout(namespace: string, nova: string, role: NovaRole, image: string): Promise<RoleRollout> {
    const name = deploymentName(nova, role);
    const deployment = await this.readDeployment(namespace, name);
    if (deployment === undefined) return { role, deployment: name, present: false, rolledOut: false, detail: `no Deployment ${name} in ${namespace}` };
    const rolling = stillRolling(deployment, role, image);
    if (rolling !== undefined) return { role, deployment: name, present: true, rolledOut: false, detail: rolling };
    return { role, deployment: name, present: true, rolledOut: true, detail: rolledOutDetail(deployment, image) };
  }

  async stampInstalledRelease(namespace: string, nova: string, role: NovaRole, release: string): Promise<'stamped' | 'unchanged' | 'absent'> {
    const name = deploymentName(nova, role);
    const deployment = await this.readDeployment(namespace, name);
    if (deployment === undefined) return 'absent';
    if (deployment.spec?.template?.metadata?.annotations?.[INSTALLED_RELEASE_ANNOTATION] === release) return 'unchanged';
    const body = { spec: { template: { metadata: { annotations: { [INSTALLED_RELEASE_ANNOTATION]: release } } } } };
    try {
      await this.apps.patchNamespacedDeployment({ name, namespace, body }, MERGE_PATCH);
      return 'stamped';
    } catch (error) {
      // Deleted between the read and the patch: as absent as at the read.
      if (statusOf(error) === 404) return 'absent';
      throw fail('patch', 'Deployment', namespace, name, error);
    }
  }

  async ensure(namespace: string, nova: NovaOwner, role: NovaRole, template: RoleTemplate): Promise<RoleRollout> {
    const name = deploymentName(nova.name, role);
    let deployment = await this.readDeployment(namespace, name);
    const body = withOwnership(deploymentBody(namespace, nova, role, template, deployment?.spec?.template?.metadata?.annotations ?? {}), nova.uid, this.ownership);
    if (deployment === undefined) {
      await this.ensureConfigMap(namespace, nova, template);
      try {
        deployment = await this.apps.createNamespacedDeployment({ namespace, body });
      } catch (error) {
        throw fail('create', 'Deployment', namespace, name, error);
      }
    } else if (deployment.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] !== template.templateHash || novaContainer(deployment, role)?.image !== template.image || (!template.autoscaled && (deployment.spec?.replicas ?? 1) !== template.replicas)) {
      await this.ensureConfigMap(namespace, nova, template);
      // an HPA owns the count of an autoscaled role: a replace keeps what it scaled to
      const replicas = template.autoscaled ? (deployment.spec?.replicas ?? template.replicas) : template.replicas;
      try {
        deployment = await this.apps.replaceNamespacedDeployment({ name, namespace, body: { ...body, metadata: { ...body.metadata, resourceVersion: deployment.metadata?.resourceVersion }, spec: { ...body.spec!, replicas } } });
      } catch (error) {
        throw fail('replace', 'Deployment', namespace, name, error);
      }
    }
    if (template.port !== undefined) await this.ensureService(namespace, withOwnership(serviceBody(namespace, nova, role, template.port), nova.uid, this.ownership));
    if (template.podDisruptionBudget !== undefined) await this.ensurePodDisruptionBudget(namespace, withOwnership(podDisruptionBudgetBody(namespace, nova, role, template.podDisruptionBudget.maxUnavailable), nova.uid, this.ownership));
    if (deployment.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] !== template.templateHash) {
      return { role, deployment: name, present: true, rolledOut: false, detail: `Deployment ${name} carries template ${deployment.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] ?? 'none'}, not ${template.templateHash}` };
    }
    const rolling = stillRolling(deployment, role, template.image);
    if (rolling !== undefined) return { role, deployment: name, present: true, rolledOut: false, detail: rolling };
    return { role, deployment: name, present: true, rolledOut: true, detail: rolledOutDetail(deployment, template.image) };
  }

  async remove(namespace: string, nova: string, role: NovaRole): Promise<'removed' | 'absent'> {
    const name = deploymentName(nova, role);
    const deleted = await Promise.all([
      this.deleteOne('Deployment', namespace, name, () => this.apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Background' })),
      this.deleteOne('Service', namespace, name, () => this.core.deleteNamespacedService({ name, namespace })),
      this.deleteOne('PodDisruptionBudget', namespace, name, () => this.policy.deleteNamespacedPodDisruptionBudget({ name, namespace })),
    ]);
    return deleted.some(Boolean) ? 'removed' : 'absent';
  }

  async endpoint(namespace: string, nova: string): Promise<string | undefined> {
    const name = deploymentName(nova, 'api');
    const service = await orAbsent(() => this.core.readNamespacedService({ name, namespace }), 'Service', namespace, name);
    if (service === undefined) return undefined;
    return serviceURL(namespace, name, service.spec?.ports?.[0]?.port ?? ROLE_PORTS.api!);
  }

  private readDeployment(namespace: string, name: string): Promise<V1Deployment | undefined> {
    return orAbsent(() => this.apps.readNamespacedDeployment({ name, namespace }), 'Deployment', namespace, name);
  }

  private async ensureConfigMap(namespace: string, nova: NovaOwner, template: RoleTemplate): Promise<void> {
    try {
      await this.core.createNamespacedConfigMap({ namespace, body: withOwnership(configMapBody(namespace, nova, template), nova.uid, this.ownership) });
    } catch (error) {
      // content-addressed: a ConfigMap of that name holds these files already
      if (statusOf(error) !== 409) throw fail('create', 'ConfigMap', namespace, template.config.name, error);
    }
  }

  private async ensureService(namespace: string, body: V1Service): Promise<void> {
    const name = body.metadata!.name!;
    const live = await orAbsent(() => this.core.readNamespacedService({ name, namespace }), 'Service', namespace, name);
    try {
      if (live === undefined) await this.core.createNamespacedService({ namespace, body });
      else if (!sameJson(live.spec?.selector, body.spec?.selector) || !sameJson(live.spec?.ports?.map((p) => [p.port, p.targetPort]), body.spec?.ports?.map((p) => [p.port, p.targetPort]))) {
        // the cluster IP is immutable: a replace carries the live one
        const spec = { ...body.spec, ...(live.spec?.clusterIP ? { clusterIP: live.spec.clusterIP } : {}), ...(live.spec?.clusterIPs ? { clusterIPs: live.spec.clusterIPs } : {}) };
        await this.core.replaceNamespacedService({ name, namespace, body: { ...body, metadata: { ...body.metadata, resourceVersion: live.metadata?.resourceVersion }, spec } });
      }
    } catch (error) {
      throw fail(live === undefined ? 'create' : 'replace', 'Service', namespace, name, error);
    }
  }

  private async ensurePodDisruptionBudget(namespace: string, body: V1PodDisruptionBudget): Promise<void> {
    const name = body.metadata!.name!;
    const live = await orAbsent(() => this.policy.readNamespacedPodDisruptionBudget({ name, namespace }), 'PodDisruptionBudget', namespace, name);
    try {
      if (live === undefined) await this.policy.createNamespacedPodDisruptionBudget({ namespace, body });
      else if (!sameJson(live.spec?.maxUnavailable, body.spec?.maxUnavailable) || !sameJson(live.spec?.selector, body.spec?.selector) || live.spec?.minAvailable !== undefined) {
        await this.policy.replaceNamespacedPodDisruptionBudget({ name, namespace, body: { ...body, metadata: { ...body.metadata, resourceVersion: live.metadata?.resourceVersion } } });
      }
    } catch (error) {
      throw fail(live === undefined ? 'create' : 'replace', 'PodDisruptionBudget', namespace, name, error);
    }
  }

  /** True when the object was there and is deleted now; absent is success. */
  private async deleteOne(kind: string, namespace: string, name: string, remove: () => Promise<unknown>): Promise<boolean> {
    try {
      await remove();
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw fail('delete', kind, namespace, name, error);
    }
  }
}
