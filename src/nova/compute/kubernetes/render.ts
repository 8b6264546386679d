/**
 * What a pool runs on Kubernetes, rendered (pure; nova-operator.md, "reconcileNovaComputeDaemonSet"):
 *
 * - the DaemonSet `{pool}-nova-compute`: labelled `app.kubernetes.io/name: nova-compute`, POOL_LABEL and
 *   `regent.dev/nova`, owned by the NovaCompute; its pods on the host network, one privileged `nova-compute` container
 *   on the pool's image running `nova-compute --config-file /etc/nova/nova.conf --config-file
 *   /etc/nova/compute-pool.conf`. nova.conf is the contract Secret's `compute.conf` (the fragment every compute node
 *   shares), compute-pool.conf the pool's immutable ConfigMap; the broker CA (`ca.crt`, only on a TLS bus) goes where
 *   the Nova's roles mount it (MESSAGING_CA_DIR) from a volume marked optional, since a plain bus has no such key.
 *   TRANSPORT_URL and AUTH_URL come from the contract Secret, NOVA_SERVICE_PASSWORD from the service user's Secret:
 *   no secret value is in the body, only Secret names and keys. RollingUpdate one node at a time.
 * - its node affinity, as required nodeSelectorTerms (ORed): the selector term (one `In [value]` per label, plus
 *   `kubernetes.io/hostname NotIn excluded` when there are excluded nodes; an empty selector with nothing excluded is
 *   `kubernetes.io/hostname Exists`, because an empty term matches no node while the spec's empty selector matches
 *   every one) and the held term (`kubernetes.io/hostname In held`). No term at all is not rendered: the step deletes.
 * - SPEC_HASH_ANNOTATION on the DaemonSet: a digest of what we render (selector, template, strategy). The API server
 *   defaults dozens of fields into a stored pod template, so comparing the live template with ours would see drift on
 *   every pass; the digest changes exactly when our rendering does.
 * - the pool's config ConfigMap (immutable) and the VerticalPodAutoscaler of the DaemonSet.
 */
import { createHash } from 'node:crypto';
import type { V1ConfigMap, V1DaemonSet, V1NodeSelectorRequirement, V1NodeSelectorTerm } from '@kubernetes/client-node';
import { MESSAGING_CA_DIR, MESSAGING_CA_KEY } from '../../config/settings.js';
import { PUBLISHED_AT_ANNOTATION } from '../../config/port.js';
import { COMPUTE_CONTRACT_KEYS } from '../../config/compute.js';
import { TEMPLATE_HASH_ANNOTATION } from '../../jobs/template-hash.js';
import { canonicalJson } from '../../group/kubernetes.js';
import { VPA_GROUP, VPA_VERSION } from '../../group/render.js';
import { POOL_CONFIG_FILE, POOL_LABEL, daemonSetName, type PoolAffinity, type PoolDaemonSetSpec, type PoolOwner } from '../port.js';
import { poolOwnerReference } from './common.js';

export const SPEC_HASH_ANNOTATION = TEMPLATE_HASH_ANNOTATION;
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
export const COMPUTE_CONTAINER = 'nova-compute';
export const NOVA_CONF_PATH = '/etc/nova/nova.conf';
export const POOL_CONF_PATH = `/etc/nova/${POOL_CONFIG_FILE}`;
export const SERVICE_PASSWORD_KEY = 'password';

/** The labels every object of the pool carries (its pods' selector is the first and the pool label). */
export const poolLabels = (pool: string): Record<string, string> => ({ 'app.kubernetes.io/name': 'nova-compute', 'app.kubernetes.io/instance': pool, 'app.kubernetes.io/managed-by': 'regent', [POOL_LABEL]: pool });
export const poolSelector = (pool: string): Record<string, string> => ({ 'app.kubernetes.io/name': 'nova-compute', [POOL_LABEL]: pool });

const sorted = (values: readonly string[]): string[] => [...new Set(values)].sort();

/** The nodeSelectorTerms of `affinity`; empty when it has no term (the DaemonSet must be deleted, not written). */
export const nodeSelectorTerms = (affinity: PoolAffinity): V1NodeSelectorTerm[] => {
  const terms: V1NodeSelectorTerm[] = [];
  if (affinity.selector !== undefined) {
    const expressions: V1NodeSelectorRequirement[] = Object.keys(affinity.selector.labels)
      .sort()
      .map((key) => ({ key, operator: 'In', values: [affinity.selector!.labels[key]!] }));
    const excluded = sorted(affinity.selector.excluded);
    if (excluded.length > 0) expressions.push({ key: HOSTNAME_LABEL, operator: 'NotIn', values: excluded });
    // an empty term selects nothing; the pool's empty selector selects every node
    if (expressions.length === 0) expressions.push({ key: HOSTNAME_LABEL, operator: 'Exists' });
    terms.push({ matchExpressions: expressions });
  }
  const held = sorted(affinity.held);
  if (held.length > 0) terms.push({ matchExpressions: [{ key: HOSTNAME_LABEL, operator: 'In', values: held }] });
  return terms;
};

const digest = (value: unknown): string => createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);

/** The DaemonSet as we want it, SPEC_HASH_ANNOTATION included. Throws when the affinity has no term. */
export const daemonSetBody = (spec: PoolDaemonSetSpec): V1DaemonSet => {
  const terms = nodeSelectorTerms(spec.affinity);
  if (terms.length === 0) throw new Error(`DaemonSet ${spec.namespace}/${daemonSetName(spec.pool)}: the affinity has no term, so it would select no node: delete the DaemonSet instead`);
  const labels = { ...poolLabels(spec.pool), 'regent.dev/nova': spec.nova };
  const secretEnv = (name: string, secret: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: secret, key } } });
  const body: V1DaemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: daemonSetName(spec.pool), namespace: spec.namespace, labels, ownerReferences: [poolOwnerReference(spec.owner)] },
    spec: {
      selector: { matchLabels: poolSelector(spec.pool) },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels, ...(Object.keys(spec.annotations).length === 0 ? {} : { annotations: { ...spec.annotations } }) },
        spec: {
          hostNetwork: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
          containers: [
            {
              name: COMPUTE_CONTAINER,
              image: spec.image,
              command: ['nova-compute', '--config-file', NOVA_CONF_PATH, '--config-file', POOL_CONF_PATH],
              securityContext: { privileged: true },
              env: [
                secretEnv('TRANSPORT_URL', spec.contractSecret, COMPUTE_CONTRACT_KEYS.transportURL),
                secretEnv('AUTH_URL', spec.contractSecret, COMPUTE_CONTRACT_KEYS.authURL),
                secretEnv('NOVA_SERVICE_PASSWORD', spec.serviceUserSecret, SERVICE_PASSWORD_KEY),
              ],
              volumeMounts: [
                { name: 'nova-conf', mountPath: NOVA_CONF_PATH, subPath: 'nova.conf', readOnly: true },
                { name: 'pool-config', mountPath: POOL_CONF_PATH, subPath: POOL_CONFIG_FILE, readOnly: true },
                { name: 'messaging-ca', mountPath: MESSAGING_CA_DIR, readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'nova-conf', secret: { secretName: spec.contractSecret, items: [{ key: COMPUTE_CONTRACT_KEYS.fragment, path: 'nova.conf' }] } },
            { name: 'pool-config', configMap: { name: spec.config.name, items: [{ key: POOL_CONFIG_FILE, path: POOL_CONFIG_FILE }] } },
            // ca.crt is in the contract on a TLS bus only: optional, or every pod on a plain bus would not start
            { name: 'messaging-ca', secret: { secretName: spec.contractSecret, items: [{ key: COMPUTE_CONTRACT_KEYS.ca, path: MESSAGING_CA_KEY }], optional: true } },
          ],
        },
      },
    },
  };
  const hash = digest({ selector: body.spec!.selector, template: body.spec!.template, updateStrategy: body.spec!.updateStrategy });
  return { ...body, metadata: { ...body.metadata, annotations: { [SPEC_HASH_ANNOTATION]: hash } } };
};

/** The pool's config, exactly as publishConfig creates it. */
export const poolConfigMapBody = (namespace: string, owner: PoolOwner, config: { name: string; files: Readonly<Record<string, string>> }, at: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: config.name, namespace, labels: poolLabels(owner.name), annotations: { [PUBLISHED_AT_ANNOTATION]: at }, ownerReferences: [poolOwnerReference(owner)] },
  immutable: true,
  data: { ...config.files },
});

export interface PoolVPABody {
  apiVersion: `${typeof VPA_GROUP}/${typeof VPA_VERSION}`;
  kind: 'VerticalPodAutoscaler';
  metadata: { name: string; namespace: string; labels: Record<string, string>; ownerReferences: Array<ReturnType<typeof poolOwnerReference>> };
  spec: { targetRef: { apiVersion: 'apps/v1'; kind: 'DaemonSet'; name: string }; updatePolicy: { updateMode: 'Auto' } };
}

export const poolVPABody = (namespace: string, owner: PoolOwner, pool: string): PoolVPABody => ({
  apiVersion: `${VPA_GROUP}/${VPA_VERSION}`,
  kind: 'VerticalPodAutoscaler',
  metadata: { name: daemonSetName(pool), namespace, labels: poolLabels(pool), ownerReferences: [poolOwnerReference(owner)] },
  spec: { targetRef: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: daemonSetName(pool) }, updatePolicy: { updateMode: 'Auto' } },
});
