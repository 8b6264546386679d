/**
 * The WorkloadPort over apps/v1 Deployments (@kubernetes/client-node AppsV1Api): how far each Nova role's
 * Deployment has rolled onto an image, and the `nova.c5c3.io/installed-release` pod-template annotation that
 * rolls the non-API roles once more after the contract phase (nova-operator.md, "Release upgrade").
 *
 * A role is rolled out exactly when, in this order (the detail names the first one missing):
 * 1. its Nova container runs `image`. The Nova container is the one named `nova-<role>` when the pod template
 *    has one, otherwise the first container: a sidecar (a TLS proxy, a log shipper) runs an image of its own,
 *    so comparing every container would never read as rolled out; init containers are not compared either;
 * 2. the Deployment controller has observed the current spec (`status.observedGeneration >=
 *    metadata.generation`): until it has, every replica count below describes the previous template, and an
 *    upgrade would flip to Contracting on the old pods' counts;
 * 3. `updatedReplicas`, `readyReplicas` and `availableReplicas` all equal `spec.replicas` (default 1);
 * 4. `status.replicas` equals it too: an old pod still running still serves the old release, and the contract
 *    phase must not start under it.
 * A Deployment scaled to zero that runs `image` is rolled out (there is nothing left to roll).
 *
 * The stamp is a JSON merge patch of `spec.template.metadata.annotations` (Content-Type
 * `application/merge-patch+json`, set with setHeaderOptions because the client's default for PATCH is a JSON
 * patch), sent only when the annotation differs: a write of the same value would cost a request and no roll,
 * and a pass that changes nothing writes nothing. A Deployment absent at the read or at the patch is 'absent'.
 *
 * Client failures become WorkloadError with the HTTP status (none when the API server is unreachable).
 */
import { AppsV1Api, setHeaderOptions, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { INSTALLED_RELEASE_ANNOTATION, WorkloadError, deploymentName, type NovaRole, type RoleRollout, type WorkloadPort } from './port.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');

export interface KubernetesWorkloadsOptions {
  /** The cluster the Nova's namespace lives on. */
  readonly kubeConfig: KubeConfig;
}

/** The container a role's image is read from: `nova-<role>` when there is one, otherwise the first. */
export const novaContainerName = (role: NovaRole): string => `nova-${role}`;

/** What is still rolling, in words; undefined when the Deployment is rolled out onto `image`. */
const stillRolling = (deployment: V1Deployment, role: NovaRole, image: string): string | undefined => {
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  const nova = containers.find((c) => c.name === novaContainerName(role)) ?? containers[0];
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

export class KubernetesWorkloads implements WorkloadPort {
  private readonly apps: AppsV1Api;

  constructor(options: KubernetesWorkloadsOptions) {
    this.apps = options.kubeConfig.makeApiClient(AppsV1Api);
  }

  async rollout(namespace: string, nova: string, role: NovaRole, image: string): Promise<RoleRollout> {
    const name = deploymentName(nova, role);
    const deployment = await this.read(namespace, name);
    if (deployment === undefined) return { role, deployment: name, present: false, rolledOut: false, detail: `no Deployment ${name} in ${namespace}` };
    const rolling = stillRolling(deployment, role, image);
    if (rolling !== undefined) return { role, deployment: name, present: true, rolledOut: false, detail: rolling };
    const replicas = deployment.spec?.replicas ?? 1;
    return { role, deployment: name, present: true, rolledOut: true, detail: `rolled out: ${replicas} replica${replicas === 1 ? '' : 's'} on ${image}` };
  }

  async stampInstalledRelease(namespace: string, nova: string, role: NovaRole, release: string): Promise<'stamped' | 'unchanged' | 'absent'> {
    const name = deploymentName(nova, role);
    const deployment = await this.read(namespace, name);
    if (deployment === undefined) return 'absent';
    if (deployment.spec?.template?.metadata?.annotations?.[INSTALLED_RELEASE_ANNOTATION] === release) return 'unchanged';
    const body = { spec: { template: { metadata: { annotations: { [INSTALLED_RELEASE_ANNOTATION]: release } } } } };
    try {
      await this.apps.patchNamespacedDeployment({ name, namespace, body }, MERGE_PATCH);
      return 'stamped';
    } catch (error) {
      // Deleted between the read and the patch: as absent as at the read.
      if (statusOf(error) === 404) return 'absent';
      throw this.fail('patch', namespace, name, error);
    }
  }

  private async read(namespace: string, name: string): Promise<V1Deployment | undefined> {
    try {
      return await this.apps.readNamespacedDeployment({ name, namespace });
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw this.fail('read', namespace, name, error);
    }
  }

  private fail(verb: string, namespace: string, name: string, error: unknown): WorkloadError {
    const status = statusOf(error);
    const prefix = `cannot ${verb} Deployment ${name} in ${namespace}`;
    return status === undefined
      ? new WorkloadError(`${prefix}: the Kubernetes API is unreachable: ${messageOf(error)}`, undefined)
      : new WorkloadError(`${prefix}: HTTP ${status}: ${messageOf(error)}`, status);
  }
}
