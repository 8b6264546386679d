/**
 * Loading a kubeconfig: KUBECONFIG or ~/.kube/config, or the in-cluster service account when
 * running in a pod; optionally a named context.
 */
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConfigOptions {
  /** A kubeconfig file; default: KUBECONFIG, then ~/.kube/config, then in-cluster. */
  readonly kubeconfig?: string;
  readonly context?: string;
}

export const loadKubeConfig = (options: KubeConfigOptions = {}): KubeConfig => {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  if (options.context) kc.setCurrentContext(options.context);
  if (!kc.getCurrentCluster()) throw new Error('no Kubernetes cluster configured (set KUBECONFIG or run in a pod)');
  return kc;
};
