/**
 * The CRD schema (deploy/crds, read as YAML and interpreted with its CEL rules) and the io-ts
 * validation in src/resources must agree: the same objects valid, the same field paths invalid, and
 * a failed CEL rule carrying the same message text in both. This is what lets the embedded store
 * stand in for the API server.
 */
import { expect } from 'chai';
import { KINDS } from '../../src/resources/index.js';
import type { AgreementCase } from './cases/case.js';
import { identityCases } from './cases/identity.cases.js';
import { loadBalancerCases } from './cases/loadbalancer.cases.js';
import { networkCases } from './cases/network.cases.js';
import { novaCases } from './cases/nova.cases.js';
import { novaComputeCases } from './cases/nova-compute.cases.js';
import { regionCases } from './cases/region.cases.js';
import { securityGroupCases } from './cases/security-group.cases.js';
import { serverCases } from './cases/server.cases.js';
import { volumeCases } from './cases/volume.cases.js';
import { sshCertificateAuthorityCases } from './cases/ssh-certificate-authority.cases.js';
import { workloadClusterCases } from './cases/workload-cluster.cases.js';
import { workloadMachineCases } from './cases/workload-machine.cases.js';
import { validateAgainstSchema } from './support/openapi.js';
import { schemaFor } from './support/crds.js';

const TABLES: Record<string, AgreementCase[]> = {
  Region: regionCases,
  Identity: identityCases,
  Network: networkCases,
  Server: serverCases,
  Volume: volumeCases,
  LoadBalancer: loadBalancerCases,
  Nova: novaCases,
  NovaCompute: novaComputeCases,
  SSHCertificateAuthority: sshCertificateAuthorityCases,
  SecurityGroup: securityGroupCases,
  WorkloadCluster: workloadClusterCases,
  WorkloadMachine: workloadMachineCases,
};

const sorted = (paths: Iterable<string>): string[] => [...new Set(paths)].sort();

describe('CRD schema and io-ts validation agree', () => {
  for (const [kind, cases] of Object.entries(TABLES)) {
    describe(kind, () => {
      const definition = KINDS.find((k) => k.kind === kind);
      const schema = schemaFor(kind);
      it('has a definition and a table of at least ten cases, valid and invalid', () => {
        expect(definition, kind).to.not.equal(undefined);
        expect(cases.length).to.be.at.least(10);
        expect(cases.some((c) => c.expect === 'valid')).to.equal(true);
        expect(cases.some((c) => c.expect !== 'valid')).to.equal(true);
      });
      for (const c of cases) {
        it(c.title, () => {
          const oldResult = c.old === undefined ? undefined : definition!.validate(c.old);
          if (oldResult && !oldResult.ok) expect.fail(`the old object of this case is itself invalid: ${oldResult.message}`);
          const ours = definition!.validate(c.object, oldResult?.ok ? oldResult.value : undefined);
          const theirs = validateAgainstSchema(schema, c.object, c.old);
          const expected = c.expect === 'valid' ? [] : sorted(c.expect);
          const ourPaths = ours.ok ? [] : sorted(ours.errors.map((e) => e.path));
          expect(sorted(theirs.map((e) => e.path)), `CRD schema errors: ${JSON.stringify(theirs)}`).to.deep.equal(expected);
          expect(ourPaths, `io-ts errors: ${ours.ok ? 'none' : ours.message}`).to.deep.equal(expected);
          for (const ruleError of theirs.filter((e) => e.ruleMessage !== undefined)) {
            const match = !ours.ok && ours.errors.some((e) => e.path === ruleError.path && e.message.endsWith(`: ${ruleError.ruleMessage}`));
            expect(match, `io-ts must report "${ruleError.ruleMessage}" at ${ruleError.path}; got ${ours.ok ? 'valid' : ours.message}`).to.equal(true);
          }
        });
      }
    });
  }
});
