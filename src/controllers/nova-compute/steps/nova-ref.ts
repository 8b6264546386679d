/**
 * NovaRef (nova-operator.md, "reconcileNovaComputeNova"; condition NovaReady). Reads the Nova spec.novaRef names in
 * the pool's namespace and waits, in order, for the Nova (NovaNotFound), its installed release
 * (WaitingForInstalledRelease), its published contract (ComputeConfigNotPublished), its cluster
 * (TargetClusterUnavailable) and its service-user password (WaitingForServiceUserSecret), each on a 15 s requeue. It
 * hands on the effective image (spec.image, else ghcr.io/c5c3/nova-compute:<installedRelease>), the contract Secret's
 * name, and the Keystone URL (the contract's auth_url) and the Nova URL (the Nova's status.endpoint) with the service
 * user's credentials.
 *
 * A Nova placed on a target cluster (spec.targetClusterRef) is not served for pools yet: NovaReady says so
 * (TargetClusterNotSupported) instead of calling a Nova it cannot reach.
 */
import type { Nova } from '../../../resources/nova.js';
import { readServiceUserPassword } from '../../../nova/connection-secrets.js';
import { COMPUTE_CONTRACT_KEYS } from '../../../nova/config/compute.js';
import { DEFAULT_SERVICE_IDENTITY } from '../../../nova/config/settings.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';

const CONDITION = 'NovaReady';
export const COMPUTE_IMAGE_REPOSITORY = 'ghcr.io/c5c3/nova-compute';

const wait = (reason: string, message: string): StepReport => ({
  conditions: [{ type: CONDITION, status: 'False', reason, message }],
  outcome: requeue(NOVA_COMPUTE_REQUEUE_MS.secretPolling, `${CONDITION} ${reason}`),
});

/** spec.image, else the compute image of the Nova's installed release. */
export const effectiveImage = (image: string | undefined, installedRelease: string): string => image ?? `${COMPUTE_IMAGE_REPOSITORY}:${installedRelease}`;

export const novaRefStep: NovaStep<NovaComputePass> = {
  name: 'NovaRef',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, ref, object, values } = pass;
    const novaName = object.spec.novaRef.name;
    const nova = (await deps.source.get('Nova', ref.namespace, novaName)) as Nova | undefined;
    if (!nova) return wait('NovaNotFound', `Nova ${ref.namespace}/${novaName} does not exist`);
    values.nova = nova;
    const installed = nova.status?.installedRelease;
    if (!installed) return wait('WaitingForInstalledRelease', `Nova ${novaName} has no installed release yet (its Database step has not synced the schemas)`);
    const contract = nova.status?.computeConfigSecretRef?.name;
    if (!contract) return wait('ComputeConfigNotPublished', `Nova ${novaName} has not published its compute contract (status.computeConfigSecretRef) yet`);
    if (nova.spec.targetClusterRef) return wait('TargetClusterNotSupported', `Nova ${novaName} is placed on target cluster ${nova.spec.targetClusterRef.name}; pools of a Nova on a target cluster are not served by this Regent yet`);
    const password = await readServiceUserPassword(deps.secrets, ref.namespace, nova.spec);
    if (typeof password !== 'string') return wait('WaitingForServiceUserSecret', password.message);
    values.image = effectiveImage(object.spec.image, installed);
    values.contractSecret = contract;
    const authURL = (await deps.secrets.get(ref.namespace, contract))?.data[COMPUTE_CONTRACT_KEYS.authURL];
    const endpoint = nova.status?.endpoint;
    const identity = deps.configs?.settings(ref.namespace, novaName).serviceUser ?? DEFAULT_SERVICE_IDENTITY;
    if (authURL && endpoint) {
      const regionName = deps.configs?.settings(ref.namespace, novaName).regionName;
      values.login = { authURL, novaURL: endpoint, username: identity.username, password, projectName: identity.projectName, userDomainName: identity.userDomainName, projectDomainName: identity.projectDomainName, ...(regionName ? { regionName } : {}) };
    }
    const where = endpoint ? `its API at ${endpoint}` : 'no API endpoint yet';
    return { conditions: [{ type: CONDITION, status: 'True', reason: 'NovaReady', message: `Nova ${novaName} at ${installed}, contract ${contract}, ${where}; image ${values.image}` }], outcome: continueLane };
  },
};
