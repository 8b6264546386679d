/**
 * One pass of a NovaCompute pool's lane (nova-operator.md, "NovaCompute pipeline"; issue 28): the pool, the
 * controller's ports, whether the pool is being deleted, and the values one step hands to the next (pass-local).
 *
 * Which step fills which value:
 *   NovaRef     nova, image, contractSecret, login (Keystone and Nova URLs with the service user's credentials)
 *   Nodes       pool (the pool machine's context after nodesObserved), pools (every NovaCompute of the Nova),
 *               excluded (selected nodes the pool does not run on), listed (the Node metadata read)
 *   PoolConfig  config (the `{name}-config-<hash>` ConfigMap), contractHash
 *   DaemonSet   stamps (installedImage, the DaemonSet's counts)
 *   Aggregates  aggregatesCompleted (a deleting pool releases its finalizer only after a completed pass)
 *   Services    servicesPoll (the periodic poll it hands to Traits)
 * The computeapi client is opened once per pass, on first use (`api()`), so a pass requests one token.
 */
import type { Nova } from '../../resources/nova.js';
import type { NovaCompute } from '../../resources/nova-compute.js';
import type { NovaComputePoolContext } from '../../../machines/nova-compute-pool.js';
import type { ComputeApi, ComputeApiLogin } from '../../nova/compute/compute-api.js';
import type { NodeMeta } from '../../nova/compute/port.js';
import type { NovaComputeDeps } from './deps.js';

export interface PoolRef {
  namespace: string;
  name: string;
  uid: string;
}

export interface PoolStamps {
  installedImage?: string | null;
  desiredNumberScheduled?: number;
  numberReady?: number;
}

export interface NovaComputePassValues {
  nova?: Nova;
  image?: string;
  /** `<nova>-compute-config`. */
  contractSecret?: string;
  login?: ComputeApiLogin;
  /** The pool machine's context, as the last dispatch of this pass left it. */
  pool?: NovaComputePoolContext;
  /** Every NovaCompute of the same Nova in the namespace, this one included (the rivals and the needed sets). */
  pools?: NovaCompute[];
  /** The Nodes read this pass (selected, and held ones read one by one), by name. */
  listed?: ReadonlyMap<string, NodeMeta>;
  /** Selected nodes the pool does not run on (a rival's, or its own Releasing ones). */
  excluded?: string[];
  config?: { name: string; files: Readonly<Record<string, string>> };
  contractHash?: string;
  stamps: PoolStamps;
  aggregatesCompleted?: boolean;
  servicesPoll?: { afterMs: number; why: string };
}

export interface NovaComputePass {
  object: NovaCompute;
  ref: PoolRef;
  deps: NovaComputeDeps;
  /** The pool carries a deletion timestamp: it selects nothing, and every held node is leaving. */
  deleting: boolean;
  values: NovaComputePassValues;
  now: () => Date;
  /** The pass's client (opened on first use; one token per pass); throws when NovaRef handed on no login. */
  api(): Promise<ComputeApi>;
}

/** The pass's client, opened once. */
export const passApi = (deps: NovaComputeDeps, values: NovaComputePassValues): (() => Promise<ComputeApi>) => {
  let opened: Promise<ComputeApi> | undefined;
  return () => {
    if (!values.login) return Promise.reject(new Error('the Nova has no endpoint or Keystone URL yet, so Nova and Placement cannot be called'));
    opened ??= deps.openComputeApi(values.login);
    return opened;
  };
};
