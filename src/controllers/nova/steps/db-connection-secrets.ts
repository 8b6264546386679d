/**
 * The DBConnectionSecrets step (nova-operator.md, "Pipeline", DBConnectionSecrets; issue 26): both pymysql DSNs
 * materialized into `{name}-api-db-connection` and `{name}-db-connection` (the cell Secret carries cell0's DSN too),
 * each digested into its rotation annotation (api-db-connection-hash, db-connection-hash).
 *
 * The nova_api half runs first and returns on its own requeue (15 s), so a cell Secret is never derived while the
 * nova_api credentials or the nova_api cluster's address are missing: the cells sequence maps cell0 and cell1 into
 * nova_api, and a cell half written alone would let a Job or a role start against a half-configured control plane.
 *
 * Where it runs: before the Database step, as the spec orders the lane (Secrets, DBConnectionSecrets,
 * TransportURLSecret, Config, ComputeConfig, Database). A DSN needs the MariaDB cluster's address, not its schemas:
 * deps.databaseEndpoint answers from what names the cluster (the embedded default: the Secret `mariadb-<clusterRef>`;
 * Kubernetes: the Service `<clusterRef>.<namespace>.svc:3306`), so the address is known before anything is
 * provisioned, and a DSN naming a user the Database step creates a moment later is only data until a Job connects,
 * after that step. An address that is not known yet waits under SecretsReady WaitingForDBCredentials — the DSN is
 * the database credential the roles read, and the spec's SecretsReady vocabulary names no other wait for it — with
 * a message naming the cluster, so the wait is not mistaken for a missing Secret.
 *
 * Writes only when the data differ (src/nova/connection-secrets.ts). The DSNs carry passwords: they are digested,
 * never logged or put in a message.
 */
import { materializeApiConnection, materializeCellConnection, type BlockCredentials, type DatabaseEndpoint } from '../../../nova/connection-secrets.js';
import { databaseTlsMount } from '../../../nova/database-tls.js';
import { stampDigest } from '../../../nova/digests.js';
import type { DatabaseBlockName } from '../../../nova/jobs/port.js';
import { connectionSecretNames } from '../../../nova/jobs/render.js';
import { continueLane, type NovaStep, type StepReport } from '../lane.js';
import { DIGEST_ANNOTATIONS, type NovaLanePass } from '../pass.js';
import { secretsWait } from './secrets.js';

const BLOCK_NAMES: Readonly<Record<DatabaseBlockName, string>> = { api: 'nova_api', cell: 'cell' };

type Half = { credentials: BlockCredentials; endpoint: DatabaseEndpoint } | { wait: StepReport };

/** One block's inputs: the credentials the Secrets step read in this pass and its cluster's address. */
const inputsOf = async (pass: NovaLanePass, block: DatabaseBlockName): Promise<Half> => {
  const { spec } = pass.nova;
  const credentials = block === 'api' ? pass.values.apiCredentials : pass.values.cellCredentials;
  if (!credentials) {
    // the Secrets step fills both before it continues: an absent value means the step table runs this one too early
    return { wait: secretsWait('WaitingForDBCredentials', `the ${BLOCK_NAMES[block]} credentials were not read in this pass (spec.database.${block}.secretRef), so ${connectionSecretNames(pass.ref.name)[block]} is not derived`) };
  }
  const cluster = spec.database[block].clusterRef.name;
  const endpoint = await pass.deps.databaseEndpoint(pass.ref.namespace, cluster);
  if (!endpoint) {
    return { wait: secretsWait('WaitingForDBCredentials', `the address of MariaDB ${cluster} (spec.database.${block}.clusterRef) is not known yet, so the ${BLOCK_NAMES[block]} DSN cannot be derived`) };
  }
  return { credentials, endpoint };
};

const tlsOf = (pass: NovaLanePass, block: DatabaseBlockName) => {
  // the directory the Jobs' pods (or the local runner) put the block's TLS files in: the DSN names those files
  const mount = databaseTlsMount(pass.nova.spec, block, pass.deps.jobs.databaseTlsDir(pass.ref.namespace, pass.ref.name, block));
  return mount ? { tls: mount } : {};
};

export const dbConnectionSecretsStep: NovaStep<NovaLanePass> = {
  name: 'DBConnectionSecrets',
  conditions: ['SecretsReady'],
  async run(pass) {
    const { deps, ref, nova, values } = pass;
    const api = await inputsOf(pass, 'api');
    if ('wait' in api) return api.wait;
    const apiSecret = await materializeApiConnection(deps.secrets, ref, nova.spec, { ...api, ...tlsOf(pass, 'api') });
    stampDigest(values.digests, DIGEST_ANNOTATIONS.apiDbConnection, apiSecret.value);

    const cell = await inputsOf(pass, 'cell');
    if ('wait' in cell) return cell.wait;
    const cellSecret = await materializeCellConnection(deps.secrets, ref, nova.spec, { ...cell, ...tlsOf(pass, 'cell') });
    stampDigest(values.digests, DIGEST_ANNOTATIONS.dbConnection, cellSecret.value);
    return { conditions: [], outcome: continueLane };
  },
};
