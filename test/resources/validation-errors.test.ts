/**
 * A decode failure names the field to fix, in one readable message; pruning and nulls behave as
 * the API server's do.
 */
import { expect } from 'chai';
import { resolveSshInjection, validateLoadBalancer, validateServer, type ServerSpec } from '../../src/resources/index.js';

const lb = (listeners: unknown[]): unknown => ({ apiVersion: 'regent.dev/v1alpha1', kind: 'LoadBalancer', metadata: { name: 'edge' }, spec: { networkID: 'net-a', listeners } });
const server = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'web-1' }): unknown => ({
  apiVersion: 'regent.dev/v1alpha1',
  kind: 'Server',
  metadata,
  spec: { name: 'web-1', image: { name: 'cirros' }, flavor: { name: 'm1.small' }, networkID: 'net-a', ...spec },
});

describe('validation errors and pruning', () => {
  it('a bad port in the second listener is reported as spec.listeners[1].port in one message', () => {
    const result = validateLoadBalancer(lb([{ name: 'a', protocol: 'TCP', port: 80 }, { name: 'b', protocol: 'TCP', port: 70000 }]));
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors).to.deep.equal([{ path: 'spec.listeners[1].port', message: 'Invalid value: 70000: must be less than or equal to 65535' }]);
    expect(result.message).to.equal('LoadBalancer "edge" is invalid: spec.listeners[1].port: Invalid value: 70000: must be less than or equal to 65535');
  });

  it('an enum failure lists the supported values; a missing field says Required value', () => {
    const result = validateLoadBalancer(lb([{ name: 'a', protocol: 'SCTP' }]));
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.message).to.include('spec.listeners[0].port: Required value');
    expect(result.message).to.include('spec.listeners[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"');
  });

  it('apiVersion, kind and metadata.name are checked like the API server checks them', () => {
    const result = validateServer({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'Not_A_Name' }, spec: {} });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    const paths = result.errors.map((e) => e.path);
    expect(paths).to.include.members(['apiVersion', 'kind', 'metadata.name', 'spec.name', 'spec.image', 'spec.flavor', 'spec.networkID']);
  });

  it('labels and finalizers must be qualified names; only one owner reference may be the controller', () => {
    const owner = { apiVersion: 'regent.dev/v1alpha1', kind: 'Network', name: 'net-a', controller: true };
    const result = validateServer(
      server({}, { name: 'web-1', labels: { 'bad key!': 'x' }, finalizers: ['has space'], ownerReferences: [{ ...owner, uid: 'a' }, { ...owner, uid: 'b' }] }),
    );
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).to.deep.equal(['metadata.labels[bad key!]', 'metadata.finalizers[0]', 'metadata.ownerReferences']);
  });

  it('unknown fields are pruned and reported as warnings, and nulls read as absent', () => {
    const result = validateServer(server({ colour: 'blue', userData: null, volumes: [{ volumeID: 'v', size: 3 }] }));
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value.spec).to.not.have.property('colour');
    expect(result.value.spec).to.not.have.property('userData');
    expect(result.value.spec.volumes).to.deep.equal([{ volumeID: 'v' }]);
    expect(result.warnings).to.deep.equal(['unknown field "spec.colour"', 'unknown field "spec.volumes[0].size"']);
  });

  it('an immutability error names the field and says why', () => {
    const old = validateServer(server({}));
    if (!old.ok) throw new Error(old.message);
    const result = validateServer(server({ flavor: { name: 'm1.large' } }), old.value);
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.message).to.equal('Server "web-1" is invalid: spec.flavor: Invalid value: "object": flavor is immutable');
  });

  it('an omitted sshInjection resolves to ca with a CA and to identityKeypair without one', () => {
    const base = { name: 'a', image: { name: 'i' }, flavor: { name: 'f' }, networkID: 'n' } as ServerSpec;
    expect(resolveSshInjection(base)).to.equal('identityKeypair');
    expect(resolveSshInjection({ ...base, sshCertificateAuthorityId: 'ca' })).to.equal('ca');
    expect(resolveSshInjection({ ...base, sshInjection: 'none' })).to.equal('none');
  });
});
