/** A Region's status (projections/region-status.ts): the settings Regent does not act on yet are named. */
import { expect } from 'chai';
import { renderRegionResource, unrealizedRegionFields } from '../../projections/region-status.js';
import type { RegionContext } from '../../machines/region-connection.js';

const connected = {
  decidedGeneration: 1,
  dependents: null,
  specProblems: null,
  problem: null,
  connection: { secretVersion: 'v1', projectId: 'p', userId: 'u', domainId: 'd' },
} as unknown as RegionContext;

const conditionOf = (type: string, openstack?: Record<string, unknown>) =>
  renderRegionResource({ context: connected, endpoint: 'http://127.0.0.1:5000/v3', ...(openstack ? { openstack } : {}), at: '2026-12-01T00:00:00Z' }).conditions.find((c) => c.type === type);

describe('Region status', () => {
  it('a Region with only its connection settings: SpecRealized=True', () => {
    const openstack = { endpoint: 'http://127.0.0.1:5000/v3', region: 'RegionOne', credentialsSecretRef: { name: 's' }, domainID: 'd', managedRoles: ['member'] };
    expect(unrealizedRegionFields(openstack)).to.deep.equal([]);
    expect(conditionOf('SpecRealized', openstack)).to.include({ status: 'True', reason: 'AllFieldsRealized' });
    expect(conditionOf('Available', openstack)).to.include({ status: 'True', reason: 'Provisioned' });
  });

  it('the pinned-create settings (placementPreflight, requiredTraits), serviceRoles and quotas are acted on (issue 16): SpecRealized=True', () => {
    const openstack = { endpoint: 'e', region: 'r', credentialsSecretRef: { name: 's' }, compute: { placementPreflight: true, requiredTraits: ['CUSTOM_A'] }, serviceRoles: ['admin'], quotas: { compute: { cores: 8 } }, blockStorage: {}, defaultArchitecture: 'x86_64' };
    expect(unrealizedRegionFields(openstack)).to.deep.equal([]);
    expect(conditionOf('SpecRealized', openstack)).to.include({ status: 'True', reason: 'AllFieldsRealized' });
  });

  it('the inventory exports are acted on (issue 16): defaultArchitecture, the flavor selector and metadata, baremetal flavors, images', () => {
    const openstack = {
      endpoint: 'e', region: 'r', credentialsSecretRef: { name: 's' }, defaultArchitecture: 'aarch64',
      compute: { flavorSelector: { ids: ['1'] }, flavorMetadata: [{ id: '1' }], baremetalFlavorIDs: ['bm'] },
      images: { signingKey: 'k', cache: { enabled: true } },
    };
    expect(unrealizedRegionFields(openstack)).to.deep.equal([]);
    expect(conditionOf('SpecRealized', openstack)).to.include({ status: 'True', reason: 'AllFieldsRealized' });
  });

  it('network: externalNetworkID is acted on (floating IPs of LoadBalancers, issue 13); providerNetworks too (VLAN provider networks, issue 16)', () => {
    const base = { endpoint: 'e', region: 'r', credentialsSecretRef: { name: 's' } };
    expect(unrealizedRegionFields({ ...base, network: { externalNetworkID: 'n' } })).to.deep.equal([]);
    expect(unrealizedRegionFields({ ...base, network: { externalNetworkID: 'n', providerNetworks: { physicalNetwork: 'p', vlan: {} } } })).to.deep.equal([]);
  });

  it('blockStorage is acted on (issue 12: the VolumeClass allowlist and capacity bounds), except a supportedFlavors selector, which is named', () => {
    const base = { endpoint: 'e', region: 'r', credentialsSecretRef: { name: 's' } };
    const bounds = { ...base, blockStorage: { volumeClasses: { selector: { ids: ['t1'] }, metadata: [{ id: 't1', minCapacityGiB: 1, maxCapacityGiB: 10 }] } } };
    expect(unrealizedRegionFields(bounds)).to.deep.equal([]);
    expect(conditionOf('SpecRealized', bounds)).to.include({ status: 'True' });
    const flavors = { ...base, blockStorage: { volumeClasses: { selector: { ids: ['t1'] }, metadata: [{ id: 't1', supportedFlavors: { ids: ['m1.small'] } }] } } };
    expect(unrealizedRegionFields(flavors)).to.deep.equal(['spec.openstack.blockStorage.volumeClasses.metadata[0].supportedFlavors']);
    expect(conditionOf('SpecRealized', flavors)?.message).to.include('not enforced when a Server attaches a Volume');
  });
});
