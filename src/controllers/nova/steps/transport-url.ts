/**
 * The TransportURLSecret step (nova-operator.md, "Pipeline", TransportURLSecret; issue 26): the rabbit:// URL read
 * as part 1 reads it (brownfield spec.messaging.secretRef; for a managed spec.messaging.clusterRef the Secret
 * `rabbitmq-<clusterRef>`, key `url`, Regent's convention until the messaging steps are built), checked, written into
 * `{name}-transport-url`, digested (transport-url-hash), and the broker port resolved for the NetworkPolicy member
 * and the two bus workloads' probes (values.brokerPort: the first host's; values.transportURL: the accepted URL).
 *
 * A URL without an explicit port or with an IPv6 literal host is TransportURLRejected *before* the write
 * (src/nova/transport-url.ts says why nova cannot use either): `{name}-transport-url` keeps the last accepted URL
 * byte for byte, so a pod that restarts meanwhile still reaches the bus. The check applies to a managed cluster's URL
 * too: Regent reads that one from a Secret as well, and nova expands the cell mapping from either alike.
 *
 * Every wait here requeues after 15 s (RequeueSecretPolling). The URL carries the bus password: it is digested, never
 * logged or put in a message (a rejection names the Secret, the key and the host at fault).
 */
import { materializeTransportURL, readTransportURL, transportURLRef } from '../../../nova/connection-secrets.js';
import { stampDigest } from '../../../nova/digests.js';
import { checkTransportURL } from '../../../nova/transport-url.js';
import { connectionSecretNames } from '../../../nova/jobs/render.js';
import { continueLane, type NovaStep } from '../lane.js';
import { DIGEST_ANNOTATIONS, type NovaLanePass } from '../pass.js';
import { secretsWait } from './secrets.js';

export const transportURLSecretStep: NovaStep<NovaLanePass> = {
  name: 'TransportURLSecret',
  conditions: ['SecretsReady'],
  async run(pass) {
    const { deps, ref, nova, values } = pass;
    const url = await readTransportURL(deps.secrets, ref.namespace, nova.spec);
    if (typeof url !== 'string') return secretsWait('WaitingForMessagingCredentials', url.message);
    const check = checkTransportURL(url);
    if (!check.ok) {
      const source = transportURLRef(nova.spec);
      const where = source ? `the transport URL in Secret ${source.name}, key ${source.key},` : 'the transport URL';
      return secretsWait('TransportURLRejected', `${where} is not accepted: ${check.problem}. ${connectionSecretNames(ref.name).transport} keeps the last accepted URL`);
    }
    await materializeTransportURL(deps.secrets, ref, url);
    values.transportURL = url;
    values.brokerPort = check.hosts[0]!.port;
    stampDigest(values.digests, DIGEST_ANNOTATIONS.transportURL, url);
    return { conditions: [], outcome: continueLane };
  },
};
