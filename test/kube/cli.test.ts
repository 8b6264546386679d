/** The helpers the CLI wires: applyManifests, getResources, deleteResource, kind names, output. */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { evaluateJsonPath } from '../../src/kube/cli/jsonpath.js';
import { applyManifestFiles, applyManifests, deleteResource, describeApplyOutcome, getResources } from '../../src/kube/cli/manifests.js';
import { formatAge, formatObjects, formatTable } from '../../src/kube/cli/output.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { BadRequest, Invalid, NotFound } from '../../src/kube/errors.js';
import { resolveKind } from '../../src/kube/kinds.js';

const SERVERS = `
apiVersion: regent.dev/v1alpha1
kind: Server
metadata: {name: web-1}
spec: {name: web-1, image: {name: cirros}, flavor: {name: m1.small}, networkID: net-a}
---
apiVersion: regent.dev/v1alpha1
kind: Server
metadata: {name: web-2, namespace: team-b}
spec: {name: web-2, image: {name: cirros}, flavor: {name: m1.small}, networkID: net-a, colour: blue}
---
`;

describe('CLI helpers', () => {
  let dir: string;
  let source: EmbeddedResourceSource;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-cli-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  });
  afterEach(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kind names resolve case-insensitively from the kind, singular, plural or short name', () => {
    for (const name of ['Server', 'server', 'servers', 'SERVERS', 'srv']) expect(resolveKind(name)).to.equal('Server');
    expect(resolveKind('loadbalancers')).to.equal('LoadBalancer');
    expect(resolveKind('lb')).to.equal('LoadBalancer');
    expect(resolveKind('identities')).to.equal('Identity');
    expect(resolveKind('nova')).to.equal('Nova');
    expect(() => resolveKind('pods')).to.throw(BadRequest, /unknown kind "pods"/);
  });

  it('applyManifests applies every document (default namespace when none), skips empty ones and reports pruned fields', async () => {
    const outcomes = await applyManifests(source, SERVERS);
    expect(outcomes.map(describeApplyOutcome)).to.deep.equal(['server.regent.dev/web-1 created', 'server.regent.dev/web-2 created']);
    expect(outcomes.map((o) => o.namespace)).to.deep.equal(['default', 'team-b']);
    expect(outcomes[1]!.warnings).to.deep.equal(['unknown field "spec.colour"']);
    const updated = await applyManifests(source, SERVERS.replace('image: {name: cirros}', 'image: {name: ubuntu-22.04}'));
    expect(updated.map((o) => o.action)).to.deep.equal(['configured', 'unchanged']);
  });

  it('applyManifests validates every document before applying any: one invalid document applies nothing', async () => {
    const bad = `${SERVERS}\napiVersion: regent.dev/v1alpha1\nkind: Volume\nmetadata: {name: v}\nspec: {networkID: net-a, size: 0, volumeClassID: x}\n`;
    const error = await applyManifests(source, bad).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Invalid);
    expect((error as Invalid).message).to.match(/^document 3: Volume "default\/v" is invalid: spec.size: .*; spec.volumeClassID: /);
    expect((await source.list('Server')).items).to.deep.equal([]);
  });

  it('applyManifests refuses YAML errors and foreign objects, naming the document', async () => {
    expect(await applyManifests(source, 'a: [1, 2').catch((e: unknown) => e)).to.be.instanceOf(BadRequest);
    const foreign = await applyManifests(source, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n').catch((e: unknown) => e);
    expect(foreign).to.be.instanceOf(BadRequest);
    expect((foreign as Error).message).to.match(/^document 1: not a Regent resource/);
  });

  it('applyManifestFiles names the file and document of every problem, and validates every file before applying any', async () => {
    const volume = 'apiVersion: regent.dev/v1alpha1\nkind: Volume\nmetadata: {name: v}\nspec: {networkID: net-a, size: 0, volumeClassID: x}\n';
    const error = await applyManifestFiles(source, [{ file: 'a.yaml', text: SERVERS }, { file: 'b.yaml', text: `${SERVERS}---\n${volume}` }, { file: '-', text: 'kind: [' }]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Invalid);
    expect((error as Invalid).message.split('\n')).to.deep.equal([
      'b.yaml: document 4: Volume "default/v" is invalid: spec.size: Invalid value: 0: must be greater than or equal to 1; spec.volumeClassID: Invalid value: "x": must be a UUID',
      '-: document 1: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 8',
    ]);
    expect((await source.list('Server')).items, 'a.yaml is not applied').to.deep.equal([]);
  });

  it('a rule only the store checks (an immutable field) names the file and document too', async () => {
    const network = (prefix: string) => `apiVersion: regent.dev/v1alpha1\nkind: Network\nmetadata: {name: net-a}\nspec: {identityRef: {name: acme}, prefix: ${prefix}}\n`;
    await applyManifests(source, network('10.0.0.0/24'));
    const error = await applyManifests(source, `${SERVERS}---\n${network('10.9.0.0/24')}`, { file: 'net.yaml' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Invalid);
    expect((error as Invalid).message).to.match(/^net\.yaml: document 4: .*prefix is immutable/);
  });

  it('getResources lists across namespaces, in one namespace, or gets one by name', async () => {
    await applyManifests(source, SERVERS);
    expect((await getResources(source, 'servers')).items.map((o) => o.metadata.name)).to.deep.equal(['web-1', 'web-2']);
    expect((await getResources(source, 'server', undefined, { namespace: 'team-b' })).items.map((o) => o.metadata.name)).to.deep.equal(['web-2']);
    const one = await getResources(source, 'Server', 'web-1');
    expect(one.kind).to.equal('Server');
    expect(one.items).to.have.length(1);
    expect(await getResources(source, 'server', 'nope').catch((e: unknown) => e)).to.be.instanceOf(NotFound);
  });

  it('deleteResource deletes, or reports the finalizers it waits for', async () => {
    await applyManifests(source, SERVERS);
    await source.addFinalizer('Server', 'default', 'web-1', 'regent.dev/cleanup');
    const pending = await deleteResource(source, 'srv', 'web-1');
    expect(pending.message).to.equal('server.regent.dev "web-1" marked for deletion (waiting for finalizers: regent.dev/cleanup)');
    const gone = await deleteResource(source, 'servers', 'web-2', 'team-b');
    expect(gone.message).to.equal('server.regent.dev "web-2" deleted');
  });

  it('the table uses the CRD printer columns; yaml and json print one object or a List', async () => {
    await applyManifests(source, SERVERS);
    await source.patchStatus('Server', 'default', 'web-1', {
      phase: 'Running',
      conditions: [{ type: 'Available', status: 'False', reason: 'Provisioning', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    });
    const { items } = await getResources(source, 'servers');
    const now = new Date(Date.parse(items[0]!.metadata.creationTimestamp) + 3 * 3600_000);
    expect(formatTable('Server', items, { showNamespace: true, now })).to.equal(
      ['NAMESPACE   NAME    AVAILABLE   REASON         PHASE     AGE', 'default     web-1   False       Provisioning   Running   3h', 'team-b      web-2                                        3h'].join('\n'),
    );
    expect(formatTable('Server', [])).to.equal('No resources found.');
    expect(parse(formatObjects('Server', items.slice(0, 1), 'yaml', { single: true }))).to.deep.equal(items[0]);
    expect(JSON.parse(formatObjects('Server', items, 'json'))).to.deep.equal({ apiVersion: 'v1', kind: 'List', items });
  });

  it('ages read like kubectl, and the JSONPath subset selects by filter', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const at = (ms: number): string => formatAge('2026-01-01T00:00:00Z', new Date(t0.getTime() + ms));
    expect([at(5000), at(125_000), at(3 * 3600_000), at(3 * 86400_000), at(800 * 86400_000)]).to.deep.equal(['5s', '2m', '3h', '3d', '2y']);
    const object = { status: { conditions: [{ type: 'Healthy', status: 'True' }, { type: 'Available', status: 'False', reason: 'Parked' }] } };
    expect(evaluateJsonPath(object, '.status.conditions[?(@.type=="Available")].reason')).to.deep.equal(['Parked']);
    expect(evaluateJsonPath(object, '.status.conditions[0].type')).to.deep.equal(['Healthy']);
    expect(evaluateJsonPath(object, '.status.phase')).to.deep.equal([]);
  });
});
