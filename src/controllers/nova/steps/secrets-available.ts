/**
 * SecretsReady True/SecretsAvailable (nova-operator.md, "Conditions"; issue 26). Four steps report under SecretsReady
 * — Secrets, DBConnectionSecrets, TransportURLSecret and Config (ConfigError) — so none of them can say True alone: a
 * True from an early one would stand over a later one's failure. This step, placed after Config, says it once every
 * one of them has passed in this pass.
 *
 * The lane keeps the last setting of a condition, so this step must not cover a False a step set while continuing:
 * Config reports ConfigError and continues with the last-good artefacts, recording it in values.secretsNotReady; this
 * step then sets nothing and the False stands. A step that ends the lane on a SecretsReady wait never lets it run.
 *
 * The values those steps hand on are checked too: one missing means the step table runs this step too early, which is
 * a bug in the table (an error: the pass backs off), never a True.
 */
import { continueLane, type NovaStep } from '../lane.js';
import { DIGEST_ANNOTATIONS, type NovaLanePass } from '../pass.js';

/** The values the three credential steps must have handed on before SecretsReady may be True. */
const missingValues = (pass: NovaLanePass): string[] => {
  const { values } = pass;
  const required: Array<[string, boolean]> = [
    ['apiCredentials (Secrets)', values.apiCredentials !== undefined],
    ['cellCredentials (Secrets)', values.cellCredentials !== undefined],
    ['serviceUserPassword (Secrets)', values.serviceUserPassword !== undefined],
    [`digests ${DIGEST_ANNOTATIONS.apiDbConnection}, ${DIGEST_ANNOTATIONS.dbConnection} (DBConnectionSecrets)`, values.digests[DIGEST_ANNOTATIONS.apiDbConnection] !== undefined && values.digests[DIGEST_ANNOTATIONS.dbConnection] !== undefined],
    ['transportURL (TransportURLSecret)', values.transportURL !== undefined],
  ];
  return required.filter(([, present]) => !present).map(([name]) => name);
};

export const secretsAvailableStep: NovaStep<NovaLanePass> = {
  name: 'SecretsAvailable',
  conditions: ['SecretsReady'],
  async run(pass) {
    if (pass.values.secretsNotReady) return { conditions: [], outcome: continueLane };
    const missing = missingValues(pass);
    if (missing.length > 0) {
      return { conditions: [], outcome: { kind: 'error', error: new Error(`SecretsAvailable ran before the steps that hand on ${missing.join('; ')}: the lane's step table is out of order`) } };
    }
    return {
      conditions: [{ type: 'SecretsReady', status: 'True', reason: 'SecretsAvailable', message: 'every credential is read, the derived connection Secrets are written and the transport URL is accepted' }],
      outcome: continueLane,
    };
  },
};
