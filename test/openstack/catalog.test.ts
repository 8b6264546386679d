import { expect } from 'chai';
import { EndpointNotFound } from '../../src/openstack/errors.js';
import type { CatalogEntry } from '../../src/openstack/keystone/catalog.js';
import { canonicalServiceType, selectEndpoint, serviceBaseUrl } from '../../src/openstack/keystone/catalog.js';

const ep = (iface: string, region: string, url: string) => ({ interface: iface, region, region_id: region, url });
const catalog: CatalogEntry[] = [
  { type: 'compute', endpoints: [ep('public', 'One', 'https://nova.one/v2.1'), ep('internal', 'One', 'http://nova.int.one/v2.1'), ep('public', 'Two', 'https://nova.two/v2.1')] },
  { type: 'volumev3', endpoints: [ep('public', 'One', 'https://cinder.one/v3/p1')] },
  { type: 'image', endpoints: [ep('public', 'One', 'https://glance.one:9292/')] },
  { type: 'network', endpoints: [ep('public', 'One', 'https://neutron.one:9696')] },
  { type: 'load-balancer', endpoints: [ep('public', 'One', 'https://octavia.one')] },
];

describe('catalog endpoint selection', () => {
  it('picks by type, public interface by default, and region', () => {
    expect(selectEndpoint(catalog, { type: 'compute', region: 'One' })).to.equal('https://nova.one/v2.1');
    expect(selectEndpoint(catalog, { type: 'compute', region: 'Two' })).to.equal('https://nova.two/v2.1');
  });
  it('picks the internal interface when asked', () => {
    expect(selectEndpoint(catalog, { type: 'compute', interface: 'internal' })).to.equal('http://nova.int.one/v2.1');
  });
  it('refuses to guess between two regions', () => {
    expect(() => selectEndpoint(catalog, { type: 'compute' })).to.throw(EndpointNotFound, /configure region_name/);
  });
  it('finds block-storage under its volumev3 alias', () => {
    expect(selectEndpoint(catalog, { type: 'block-storage' })).to.equal('https://cinder.one/v3/p1');
    expect(selectEndpoint(catalog, { type: 'volumev3' })).to.equal('https://cinder.one/v3/p1');
    expect(canonicalServiceType('volumev3')).to.equal('block-storage');
  });
  it('prefers block-storage over volumev3 when both exist', () => {
    const both: CatalogEntry[] = [...catalog, { type: 'block-storage', endpoints: [ep('public', 'One', 'https://bs.one/v3/p1')] }];
    expect(selectEndpoint(both, { type: 'volumev3' })).to.equal('https://bs.one/v3/p1');
  });
  it('a missing service, interface or region is EndpointNotFound', () => {
    expect(() => selectEndpoint(catalog, { type: 'baremetal' })).to.throw(EndpointNotFound);
    expect(() => selectEndpoint(catalog, { type: 'image', interface: 'admin' })).to.throw(EndpointNotFound);
    expect(() => selectEndpoint(catalog, { type: 'image', region: 'Two' })).to.throw(EndpointNotFound);
  });
  it('adds the version segment only where the catalog omits it', () => {
    expect(serviceBaseUrl('image', 'https://glance.one:9292/')).to.equal('https://glance.one:9292/v2');
    expect(serviceBaseUrl('image', 'https://h/image/v2')).to.equal('https://h/image/v2');
    expect(serviceBaseUrl('network', 'https://neutron.one:9696')).to.equal('https://neutron.one:9696/v2.0');
    expect(serviceBaseUrl('load-balancer', 'https://octavia.one')).to.equal('https://octavia.one/v2');
    expect(serviceBaseUrl('baremetal', 'http://h/baremetal')).to.equal('http://h/baremetal/v1');
    expect(serviceBaseUrl('compute', 'http://h/compute/v2.1')).to.equal('http://h/compute/v2.1');
    expect(serviceBaseUrl('compute', 'http://h:8774/v2.1/p1')).to.equal('http://h:8774/v2.1/p1');
    expect(serviceBaseUrl('compute', 'http://h:8774')).to.equal('http://h:8774/v2.1');
    expect(serviceBaseUrl('block-storage', 'http://h/volume/v3/p1')).to.equal('http://h/volume/v3/p1');
    expect(serviceBaseUrl('placement', 'http://h/placement/')).to.equal('http://h/placement');
  });
});
