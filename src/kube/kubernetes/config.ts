/**
 * Loading a kubeconfig: KUBECONFIG or ~/.kube/config, or the in-cluster service account when
 * running in a pod; optionally a named context.
 *
 * The client's loadFromDefault, finding none of these, silently configures http://localhost:8080,
 * and the first request then fails with "HTTP protocol is not allowed when skipTLSVerify is not set",
 * which names none of the places it looked. So we look first, and say where.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigError } from '../errors.js';

export interface KubeConfigOptions {
  /** A kubeconfig file; default: KUBECONFIG, then ~/.kube/config, then in-cluster. */
  readonly kubeconfig?: string;
  readonly context?: string;
}

/** The service-account token a pod is given; the client treats its presence as "in cluster". */
export const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** ~/.kube/config as the client finds it: through $HOME only. */
const homeConfig = (): string | undefined => (process.env.HOME ? join(process.env.HOME, '.kube', 'config') : undefined);

/** Whether loadFromDefault would find a real configuration (its order: KUBECONFIG, ~/.kube/config, in-cluster). */
const defaultConfigExists = (): boolean => {
  const home = homeConfig();
  return Boolean(process.env.KUBECONFIG) || (home !== undefined && existsSync(home)) || existsSync(IN_CLUSTER_TOKEN);
};

/** Which configuration loadFromDefault reads, for a message when it cannot. */
const defaultConfigName = (): string => {
  const home = homeConfig();
  if (process.env.KUBECONFIG) return `${process.env.KUBECONFIG} (KUBECONFIG)`;
  return home !== undefined && existsSync(home) ? home : `the in-cluster config (${IN_CLUSTER_TOKEN})`;
};

const load = (kc: KubeConfig, options: KubeConfigOptions): void => {
  try {
    if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (error) {
    // An fs error's code (ENOENT, EACCES) says it all; a YAML error's first line names the position, the rest is a code frame.
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0];
    throw new KubeConfigError('unreadable', `cannot read kubeconfig ${options.kubeconfig ?? defaultConfigName()}: ${reason}`, { cause: error });
  }
};

export const loadKubeConfig = (options: KubeConfigOptions = {}): KubeConfig => {
  if (!options.kubeconfig && !defaultConfigExists()) {
    const home = homeConfig() ?? '~/.kube/config ($HOME is not set)';
    throw new KubeConfigError('not-found', `no kubeconfig found: KUBECONFIG is not set, ${home} does not exist, and there is no in-cluster service account (${IN_CLUSTER_TOKEN})`);
  }
  const kc = new KubeConfig();
  load(kc, options);
  if (options.context) {
    if (!kc.getContextObject(options.context)) {
      throw new KubeConfigError('unknown-context', `kubeconfig has no context "${options.context}" (it has: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    kc.setCurrentContext(options.context);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError('not-found', 'the kubeconfig names no cluster for its current context (set current-context, or use --resources kubernetes:<context>)');
  return kc;
};
