/**
 * The registry of target clusters a Nova's spec.targetClusterRef names (nova-operator.md, "Conditions":
 * TargetClusterUnavailable; "Rotation and deletion"; issue 27).
 *
 * A target cluster `<name>` is registered by a Secret `target-cluster-<name>` in the Nova's namespace with the key
 * `kubeconfig` (a kubeconfig whose current context reaches the cluster). It resolves when that kubeconfig parses and
 * the cluster answers GET /version within the probe timeout. The answer is cached for `ttlMs` (default 15 s, the
 * requeue of an unresolvable target), so a fleet of Novas naming one cluster probes it once per window.
 *
 *   unregistered  no such Secret, or no `kubeconfig` key in it
 *   unresolvable  the kubeconfig does not parse or names no server, or the cluster did not answer /version
 *   resolved      the cluster, with its KubeConfig
 *
 * Nothing here writes anything, and no secret value reaches a message.
 */
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import type { SecretStore } from '../kube/secrets.js';

export const TARGET_CLUSTER_SECRET_PREFIX = 'target-cluster-';
export const KUBECONFIG_KEY = 'kubeconfig';

export const targetClusterSecretName = (cluster: string): string => `${TARGET_CLUSTER_SECRET_PREFIX}${cluster}`;

export interface TargetCluster {
  name: string;
  kubeConfig: KubeConfig;
  /** The API server's URL, for messages. */
  server: string;
}

export type TargetResolution = { kind: 'resolved'; cluster: TargetCluster } | { kind: 'unregistered'; message: string } | { kind: 'unresolvable'; message: string };

export interface TargetClusters {
  resolve(namespace: string, name: string): Promise<TargetResolution>;
}

export interface SecretTargetClustersOptions {
  secrets: Pick<SecretStore, 'get'>;
  /** How long an answer is reused (default 15 000 ms). */
  ttlMs?: number;
  /** How long GET /version may take (default 5 000 ms). */
  probeTimeoutMs?: number;
  now?: () => number;
}

/** Parses a kubeconfig; the server of its current context, or why there is none. */
export const parseKubeconfig = (text: string): { kubeConfig: KubeConfig; server: string } | { problem: string } => {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(text);
  } catch (error) {
    return { problem: `its kubeconfig does not parse (${(error as Error).message.split('\n')[0]})` };
  }
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) return { problem: 'its kubeconfig names no cluster server in its current context' };
  return { kubeConfig, server };
};

export class SecretTargetClusters implements TargetClusters {
  private readonly cache = new Map<string, { at: number; answer: TargetResolution }>();
  private readonly ttlMs: number;
  private readonly probeTimeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SecretTargetClustersOptions) {
    this.ttlMs = options.ttlMs ?? 15_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 5_000;
    this.now = options.now ?? (() => Date.now());
  }

  async resolve(namespace: string, name: string): Promise<TargetResolution> {
    const key = `${namespace}/${name}`;
    const cached = this.cache.get(key);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.answer;
    const answer = await this.resolveNow(namespace, name);
    this.cache.set(key, { at: this.now(), answer });
    return answer;
  }

  /** Forgets every cached answer (a test, or a registry Secret known to have changed). */
  evict(): void {
    this.cache.clear();
  }

  private async resolveNow(namespace: string, name: string): Promise<TargetResolution> {
    const secretName = targetClusterSecretName(name);
    const secret = await this.options.secrets.get(namespace, secretName);
    if (!secret) return { kind: 'unregistered', message: `the target cluster ${name} is not registered: there is no Secret ${namespace}/${secretName}` };
    const text = secret.data[KUBECONFIG_KEY];
    if (!text) return { kind: 'unregistered', message: `the target cluster ${name} is not registered: the Secret ${namespace}/${secretName} has no key ${KUBECONFIG_KEY}` };
    const parsed = parseKubeconfig(text);
    if ('problem' in parsed) return { kind: 'unresolvable', message: `the target cluster ${name} does not resolve: ${parsed.problem}` };
    const probe = await this.probe(parsed.kubeConfig);
    if (probe) return { kind: 'unresolvable', message: `the target cluster ${name} does not resolve: GET ${parsed.server}/version ${probe}` };
    return { kind: 'resolved', cluster: { name, kubeConfig: parsed.kubeConfig, server: parsed.server } };
  }

  /** GET /version; undefined when the cluster answered, else what went wrong in words. */
  private async probe(kubeConfig: KubeConfig): Promise<string | undefined> {
    const api = kubeConfig.makeApiClient(VersionApi);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`had no answer within ${this.probeTimeoutMs} ms`)), this.probeTimeoutMs);
      });
      await Promise.race([api.getCode(), timeout]);
      return undefined;
    } catch (error) {
      const e = error as { code?: number; message?: string };
      return typeof e.code === 'number' ? `answered ${e.code}` : `failed: ${(e.message ?? String(error)).split('\n')[0]}`;
    } finally {
      clearTimeout(timer);
    }
  }
}
