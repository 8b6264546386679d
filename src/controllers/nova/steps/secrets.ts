/**
 * The Secrets step (nova-operator.md, "Pipeline", Secrets; issue 26): the gates every later step stands on, in the
 * spec's order, the first closed one ending the lane with SecretsReady False and a 15 s requeue (RequeueSecretPolling):
 *
 *   TargetClusterUnavailable        spec.targetClusterRef is set: Regent has no target clusters, so none resolves
 *   ClusterSecretStoreUnsupported   the selected store is a ClusterSecretStore and Regent is namespace-scoped
 *   SecretStoreNotReady             the selected store is not Ready
 *   WaitingForDBCredentials         a block's credentials Secret, or (tls enabled) its CA / client certificate
 *   WaitingForServiceUserCredentials the service-user password
 *   WaitingForMetadataSharedSecret  spec.metadata.sharedSecretRef's Secret or key
 *   MetadataSharedSecretEmpty       that key exists but is empty: nova would verify against an empty key
 *   WaitingForMessagingCA           on a TLS bus, the broker CA bundle
 *   WaitingForMessagingCredentials  the Secret holding the transport URL (its user and password)
 *
 * The messaging credentials are gated on every bus, not only a TLS one: without them TransportURLSecret has nothing to
 * derive, and a Secrets gate that passed over a missing credential would let the lane run on to a step that can only
 * wait for it. On a TLS bus the CA bundle comes first, as the spec lists it.
 *
 * When every gate is open the step fills the pass's values (both blocks' credentials, the service-user password, the
 * metadata shared secret, the broker CA) and stamps two rotation digests, authtoken-hash and metadata-secret-hash —
 * only then, so a pass stopped at a gate hands the workload steps no digest and rolls nothing. It sets no True: the
 * SecretsAvailable step after Config does (./secrets-available.ts), since three more steps report under SecretsReady.
 *
 * Messages name fields, Secrets and keys, never a value.
 */
import { readCredentials, readMessagingCA, readMetadataSharedSecret, readServiceUserPassword, readTransportURL } from '../../../nova/connection-secrets.js';
import { readDatabaseTls } from '../../../nova/database-tls.js';
import { stampDigest } from '../../../nova/digests.js';
import { embeddedSecretStoreGate, selectedSecretStore, type SecretStoreGate } from '../../../nova/secret-store.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../lane.js';
import { DIGEST_ANNOTATIONS, type NovaLanePass } from '../pass.js';
import type { NovaControllerDeps } from '../deps.js';

/** RequeueSecretPolling: the secret-store and credential gates, both DB-connection halves, the transport-URL step. */
export const SECRET_POLLING_MS = 15_000;

/** What the lead adds to NovaControllerDeps for this step (optional: absent, Regent's own store stands in). */
export interface SecretsStepDeps {
  /** The selected secret store's gate: src/nova/secret-store.ts (embedded stand-in, or the namespaced Kubernetes gate). */
  secretStoreGate?: SecretStoreGate;
}

export type SecretsWaitReason =
  | 'TargetClusterUnavailable'
  | 'SecretStoreNotReady'
  | 'ClusterSecretStoreUnsupported'
  | 'WaitingForDBCredentials'
  | 'WaitingForServiceUserCredentials'
  | 'WaitingForMetadataSharedSecret'
  | 'MetadataSharedSecretEmpty'
  | 'WaitingForMessagingCA'
  | 'WaitingForMessagingCredentials'
  | 'TransportURLRejected';

/** SecretsReady False with a reason, and the 15 s requeue every SecretsReady wait takes. */
export const secretsWait = (reason: SecretsWaitReason, message: string): StepReport => ({
  conditions: [{ type: 'SecretsReady', status: 'False', reason, message }],
  outcome: requeue(SECRET_POLLING_MS, `SecretsReady ${reason}: ${message}`),
});

/** Regent registers no target clusters (nova-operator.md, "Target Clusters", is not built), so every ref is unresolvable. */
const targetClusterMessage = (name: string): string =>
  `spec.targetClusterRef names target cluster ${name}, which Regent cannot resolve: Regent has no target clusters yet ` +
  '(a Nova runs where Regent runs), so nothing is created on any cluster; remove spec.targetClusterRef to run it here';

export const secretsStep: NovaStep<NovaLanePass> = {
  name: 'Secrets',
  conditions: ['SecretsReady'],
  async run(pass) {
    const { nova, ref } = pass;
    const deps: NovaControllerDeps & SecretsStepDeps = pass.deps;
    const { spec } = nova;
    const ns = ref.namespace;

    if (spec.targetClusterRef) return secretsWait('TargetClusterUnavailable', targetClusterMessage(spec.targetClusterRef.name));

    const store = await (deps.secretStoreGate ?? embeddedSecretStoreGate).check(ns, selectedSecretStore(spec));
    if (store.kind === 'unsupported') return secretsWait('ClusterSecretStoreUnsupported', store.message);
    if (store.kind === 'notReady') return secretsWait('SecretStoreNotReady', store.message);

    // nova_api before the cell block, each block's credentials before its TLS Secrets: the order part 1 gates in
    const api = await readCredentials(deps.secrets, ns, spec, 'api');
    if ('missing' in api) return secretsWait('WaitingForDBCredentials', api.message);
    const apiTls = await readDatabaseTls(deps.secrets, ns, spec, 'api');
    if (apiTls && 'missing' in apiTls) return secretsWait('WaitingForDBCredentials', apiTls.missing);
    const cell = await readCredentials(deps.secrets, ns, spec, 'cell');
    if ('missing' in cell) return secretsWait('WaitingForDBCredentials', cell.message);
    const cellTls = await readDatabaseTls(deps.secrets, ns, spec, 'cell');
    if (cellTls && 'missing' in cellTls) return secretsWait('WaitingForDBCredentials', cellTls.missing);

    const serviceUser = await readServiceUserPassword(deps.secrets, ns, spec);
    if (typeof serviceUser !== 'string') return secretsWait('WaitingForServiceUserCredentials', serviceUser.message);

    const metadata = await readMetadataSharedSecret(deps.secrets, ns, spec);
    if (metadata !== undefined && typeof metadata !== 'string') {
      return secretsWait(metadata.missing === 'metadataEmpty' ? 'MetadataSharedSecretEmpty' : 'WaitingForMetadataSharedSecret', metadata.message);
    }

    const ca = await readMessagingCA(deps.secrets, ns, spec);
    if (ca !== undefined && typeof ca !== 'string') return secretsWait('WaitingForMessagingCA', ca.message);
    const transport = await readTransportURL(deps.secrets, ns, spec);
    if (typeof transport !== 'string') return secretsWait('WaitingForMessagingCredentials', transport.message);

    const { values } = pass;
    values.apiCredentials = api;
    values.cellCredentials = cell;
    values.serviceUserPassword = serviceUser;
    if (metadata !== undefined) values.metadataSharedSecret = metadata;
    if (ca !== undefined) values.messagingCA = ca;
    stampDigest(values.digests, DIGEST_ANNOTATIONS.authtoken, serviceUser);
    stampDigest(values.digests, DIGEST_ANNOTATIONS.metadataSecret, metadata);
    return { conditions: [], outcome: continueLane };
  },
};
