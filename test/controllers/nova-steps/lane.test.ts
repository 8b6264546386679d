/**
 * The gate steps run as a lane (src/controllers/nova/lane.ts runLane) with SecretsAvailable after a stand-in Config:
 * SecretsReady is True/SecretsAvailable only when every step reporting under it passed; a False a step set while
 * continuing (Config's ConfigError) stands; a pass stopped at a gate hands on no digest (rolls nothing); SecretsAvailable
 * run before the steps it summarizes is an error, never a True.
 */
import { expect } from 'chai';
import { runLane, continueLane, type NovaStep } from '../../../src/controllers/nova/lane.js';
import type { NovaLanePass } from '../../../src/controllers/nova/pass.js';
import { secretsStep } from '../../../src/controllers/nova/steps/secrets.js';
import { dbConnectionSecretsStep } from '../../../src/controllers/nova/steps/db-connection-secrets.js';
import { transportURLSecretStep } from '../../../src/controllers/nova/steps/transport-url.js';
import { secretsAvailableStep } from '../../../src/controllers/nova/steps/secrets-available.js';
import { NOVA_GROUP } from '../../../src/controllers/nova/pipeline.js';
import { allSecrets, containsNoCredential, makePass, recordingSecrets, spoken } from './pass-rig.js';

/** Config as the lane sees it: passes, or reports ConfigError and continues on the last-good artefacts. */
const config = (error: boolean): NovaStep<NovaLanePass> => ({
  name: 'Config',
  conditions: ['SecretsReady'],
  async run(pass) {
    if (!error) return { conditions: [], outcome: continueLane };
    const failure = { reason: 'ConfigError', message: 'section [DEFAULT] carries a control character' };
    pass.values.secretsNotReady = failure;
    return { conditions: [{ type: 'SecretsReady', status: 'False', ...failure }], outcome: continueLane };
  },
});

const lane = (configError = false) => [secretsStep, dbConnectionSecretsStep, transportURLSecretStep, config(configError), secretsAvailableStep, ...NOVA_GROUP.filter((s) => s.name !== 'HealthCheck')];
const secretsReady = (conditions: Array<{ type: string }>) => conditions.find((c) => c.type === 'SecretsReady');

describe('nova lane: the gate steps together', () => {
  it('every step passes: SecretsReady True/SecretsAvailable, all five digests stamped, the part-3 conditions NotRequired', async () => {
    const pass = makePass();
    const result = await runLane(lane(), pass);
    expect(result.endedAt).to.equal(null);
    expect(secretsReady(result.conditions)).to.include({ status: 'True', reason: 'SecretsAvailable' });
    expect(Object.keys(pass.values.digests).sort()).to.deep.equal(['nova.c5c3.io/api-db-connection-hash', 'nova.c5c3.io/authtoken-hash', 'nova.c5c3.io/db-connection-hash', 'nova.c5c3.io/metadata-secret-hash', 'nova.c5c3.io/transport-url-hash']);
    expect(result.conditions.filter((c) => c.type !== 'SecretsReady').every((c) => c.status === 'True' && c.reason.endsWith('NotRequired'))).to.equal(true);
    expect(containsNoCredential(spoken(result))).to.equal(undefined);
  });

  it('Config reports ConfigError and continues: SecretsAvailable does not cover it, SecretsReady stays False/ConfigError', async () => {
    const result = await runLane(lane(true), makePass());
    expect(result.endedAt).to.equal(null);
    expect(secretsReady(result.conditions)).to.include({ status: 'False', reason: 'ConfigError' });
  });

  it('a pass stopped at a gate ends the lane there with no digest handed on: nothing rolls', async () => {
    const seed = allSecrets();
    delete seed['nova-metadata'];
    const pass = makePass({ secrets: recordingSecrets(seed) });
    const result = await runLane(lane(), pass);
    expect(result.endedAt).to.equal('Secrets');
    expect(result.outcome).to.deep.include({ kind: 'requeue', afterMs: 15_000 });
    expect(pass.values.digests).to.deep.equal({});
    expect(pass.secrets.puts).to.deep.equal([]);
  });

  it('a rejected transport URL ends the lane after both DB-connection Secrets, before the transport Secret and SecretsAvailable', async () => {
    const seed = allSecrets();
    seed['nova-bus'] = { url: 'rabbit://nova:pw@rabbit.openstack.svc/nova' };
    const pass = makePass({ secrets: recordingSecrets(seed) });
    const result = await runLane(lane(), pass);
    expect(result.endedAt).to.equal('TransportURLSecret');
    expect(secretsReady(result.conditions)).to.include({ status: 'False', reason: 'TransportURLRejected' });
    expect(pass.secrets.puts).to.deep.equal(['nova-api-db-connection', 'nova-db-connection']);
  });

  it('SecretsAvailable run before the steps it summarizes is an error naming what is missing, never a True', async () => {
    const result = await runLane([secretsAvailableStep], makePass());
    expect(result.outcome.kind).to.equal('error');
    expect(String((result.outcome as { error: Error }).error.message)).to.include('transportURL (TransportURLSecret)');
    expect(secretsReady(result.conditions)).to.equal(undefined);
  });
});
