/** Every example is valid for both validators and applies cleanly, in dependency order, to an embedded store. */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { formatTable } from '../../src/kube/cli/output.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { KINDS, KIND_NAMES } from '../../src/resources/index.js';
import { validateAgainstSchema } from '../resources/support/openapi.js';
import { schemaFor } from '../resources/support/crds.js';

const DIR = fileURLToPath(new URL('../../examples/', import.meta.url));
const ORDER = ['region.yaml', 'identity.yaml', 'network.yaml', 'securitygroup.yaml', 'sshcertificateauthority.yaml', 'volume.yaml', 'servers.yaml', 'loadbalancer.yaml', 'nova.yaml', 'novacompute.yaml', 'workload-cluster.yaml'];

describe('examples', () => {
  it('there is an example for every kind, and two Servers', () => {
    expect(readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort()).to.deep.equal([...ORDER].sort());
    const kinds = ORDER.flatMap((f) => parseAllDocuments(readFileSync(join(DIR, f), 'utf8')).map((d) => (d.toJS() as { kind: string }).kind));
    expect([...new Set(kinds)].sort()).to.deep.equal([...KIND_NAMES].sort());
    expect(kinds.filter((k) => k === 'Server')).to.have.length(2);
  });

  for (const file of ORDER) {
    it(`${file} is valid for the io-ts validation and the CRD schema, with no pruned fields`, () => {
      for (const doc of parseAllDocuments(readFileSync(join(DIR, file), 'utf8'))) {
        const object = doc.toJS() as { kind: string };
        const result = KINDS.find((k) => k.kind === object.kind)!.validate(object);
        expect(result.ok, result.ok ? '' : result.message).to.equal(true);
        if (result.ok) expect(result.warnings).to.deep.equal([]);
        expect(validateAgainstSchema(schemaFor(object.kind), object)).to.deep.equal([]);
      }
    });
  }

  it('apply in dependency order to an embedded store, and print as a table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-examples-'));
    const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    try {
      const text = ORDER.map((f) => readFileSync(join(DIR, f), 'utf8')).join('\n---\n');
      const outcomes = await applyManifests(source, text);
      expect(outcomes.map((o) => `${o.kind}/${o.name} ${o.action}`)).to.deep.equal([
        'Region/region-one created',
        'Identity/acme-web created',
        'Network/net-a created',
        'SecurityGroup/web-sg created',
        'SSHCertificateAuthority/web-users created',
        'Volume/data-1 created',
        'Server/web-1 created',
        'Server/web-2 created',
        'LoadBalancer/web-lb created',
        'Nova/nova created',
        'NovaCompute/az1 created',
        'WorkloadCluster/demo created',
        'WorkloadMachine/demo-control-plane-0 created',
      ]);
      const again = await applyManifests(source, text);
      expect(new Set(again.map((o) => o.action))).to.deep.equal(new Set(['unchanged']));
      const servers = await source.list('Server', 'default');
      expect(formatTable('Server', servers.items, { now: new Date(Date.parse(servers.items[0]!.metadata.creationTimestamp) + 5000) })).to.equal(
        ['NAME    AVAILABLE   REASON   PHASE   AGE', 'web-1                                5s', 'web-2                                5s'].join('\n'),
      );
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
