/** Which Server spec fields Regent does not act on yet (issue 10, item 14), each named with what does not happen. */
import { expect } from 'chai';
import { unrealizedServerFields } from '../../projections/server-unrealized.js';
import type { ServerSpec } from '../../src/resources/server.js';

const base: ServerSpec = { name: 'web-1', image: { name: 'ubuntu-22.04' }, flavor: { name: 'm1.small' }, networkID: 'net-a', sshInjection: 'none' };
const fields = (spec: Partial<ServerSpec>) => unrealizedServerFields({ ...base, ...spec }).map((u) => u.field);

describe('projection: unrealized Server spec fields', () => {
  it('a spec Regent realizes in full names nothing (image, flavor, network, userData, sshInjection none)', () => {
    expect(fields({ userData: 'I2Nsb3VkLWNvbmZpZwo=' })).to.deep.equal([]);
  });
  it('volumes are realized since issue 12 (attached by the volume pass; VolumesAttached says how far): not named', () => {
    expect(fields({ volumes: [{ volumeID: 'data-1' }] })).to.deep.equal([]);
  });
  const cases: Array<[string, Partial<ServerSpec>, string]> = [];
  it('securityGroups are acted on (issue 17: the create names the groups\' Neutron ids): not named', () => {
    expect(fields({ securityGroups: ['sg-1'] })).to.deep.equal([]);
  });
  for (const [title, spec, field] of cases) {
    it(title, () => {
      const spec2 = { ...base, ...spec };
      if (spec.sshInjection === undefined && 'sshInjection' in spec) delete (spec2 as Partial<ServerSpec>).sshInjection;
      expect(unrealizedServerFields(spec2).map((u) => u.field)).to.deep.equal([field]);
      expect(unrealizedServerFields(spec2)[0]?.why).to.match(/not implemented yet/);
    });
  }
  it('sshInjection identityKeypair, given or by default (no CA), is acted on (issue 17: key_name is the identity keypair): not named', () => {
    expect(fields({ sshInjection: 'identityKeypair' })).to.deep.equal([]);
    const omitted: Partial<ServerSpec> = { ...base };
    delete omitted.sshInjection;
    expect(unrealizedServerFields(omitted).map((u) => u.field)).to.deep.equal([]);
  });
  it('sshInjection ca, given or by the CA alone, is acted on (issue 17: the CA is merged into the user data): not named', () => {
    expect(fields({ sshInjection: 'ca', sshCertificateAuthorityId: 'ca-1' })).to.deep.equal([]);
    const legacy: Partial<ServerSpec> = { ...base, sshCertificateAuthorityId: 'ca-1' };
    delete legacy.sshInjection;
    expect(unrealizedServerFields(legacy).map((u) => u.field)).to.deep.equal([]);
  });
  it('securityGroups: sent with the create, so realized while the list is the one the server was created with', () => {
    const spec = { ...base, securityGroups: ['web', 'db'] };
    expect(unrealizedServerFields(spec, { created: false })).to.deep.equal([]);
    expect(unrealizedServerFields(spec, { created: true, securityGroups: ['db', 'web'] })).to.deep.equal([]);
  });
  it('securityGroups changed after the create, or on a server created without them, are named with what the server keeps', () => {
    const changed = unrealizedServerFields({ ...base, securityGroups: ['web', 'ops'] }, { created: true, securityGroups: ['db', 'web'] });
    expect(changed.map((u) => u.field)).to.deep.equal(['spec.securityGroups']);
    expect(changed[0]?.why).to.match(/not implemented yet/).and.include('keeps the groups it was created with (db, web)');
    expect(unrealizedServerFields({ ...base, securityGroups: ['web'] }, { created: true })[0]?.why).to.include('(the project default)');
    expect(unrealizedServerFields({ ...base }, { created: true, securityGroups: ['web'] }).map((u) => u.field), 'groups removed since').to.deep.equal(['spec.securityGroups']);
  });
  it('identityKeypair on a server created without a key (no Nova keypair for its Identity) is named; with one, not', () => {
    const spec = { ...base, sshInjection: 'identityKeypair' as const };
    expect(unrealizedServerFields(spec, { created: true, keyName: 'regent-uid' })).to.deep.equal([]);
    expect(unrealizedServerFields(spec, { created: false })).to.deep.equal([]);
    const keyless = unrealizedServerFields(spec, { created: true });
    expect(keyless.map((u) => u.field)).to.deep.equal(['spec.sshInjection']);
    expect(keyless[0]?.why).to.include('created without a key');
    expect(unrealizedServerFields({ ...base, sshInjection: 'none' }, { created: true }), 'none needs no key').to.deep.equal([]);
  });
  it('providerCreateGates are acted on (the create waits for every gate, issue 17): not named', () => {
    expect(fields({ providerCreateGates: [{ name: 'gate-1' }] })).to.deep.equal([]);
  });
  it('infrastructureRef is acted on (the pinned create, issue 16): not named', () => {
    expect(unrealizedServerFields({ ...base, sshInjection: 'none', infrastructureRef: { host: 'compute-1' } }).map((u) => u.field)).to.deep.equal([]);
  });
});
