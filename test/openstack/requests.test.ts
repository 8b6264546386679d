import { expect } from 'chai';
import { rebuildBody } from '../../src/openstack/nova/actions.js';
import { createServerBody } from '../../src/openstack/nova/servers.js';
import { authRequestBody } from '../../src/openstack/keystone/auth.js';
import { candidateQuery } from '../../src/openstack/placement.js';
import { poolCreateHeaders } from '../../src/openstack/octavia/pools.js';
import { createListenerBody, nestedPoolHeaders } from '../../src/openstack/octavia/listeners.js';
import { createLoadBalancerBody } from '../../src/openstack/octavia/load-balancers.js';
import { encodeQuery } from '../../src/openstack/http.js';
import { nextHref, queryOfHref } from '../../src/openstack/paging.js';
import { backoffDelay } from '../../src/openstack/retry.js';
import { InvalidConfig } from '../../src/openstack/errors.js';
import { resolveMicroversions } from '../../src/openstack/microversions.js';

describe('request bodies and helpers', () => {
  it('a rebuild body carries only imageRef by default', () => {
    expect(rebuildBody('img-2')).to.deep.equal({ rebuild: { imageRef: 'img-2' } });
  });
  it('a rebuild body never carries key_name or user_data, even when smuggled in', () => {
    const smuggled = { key_name: 'k', user_data: 'x', keyName: 'k', userData: 'x' } as unknown as Parameters<typeof rebuildBody>[1];
    expect(rebuildBody('img-2', smuggled)).to.deep.equal({ rebuild: { imageRef: 'img-2' } });
    expect(rebuildBody('img-2', { name: 'n', preserveEphemeral: true })).to.deep.equal({ rebuild: { imageRef: 'img-2', name: 'n', preserve_ephemeral: true } });
  });
  it('a create body base64-encodes user data and sends key_name only when asked', () => {
    const body = createServerBody({ name: 's', flavorRef: 'f', imageRef: 'i', networks: [{ uuid: 'n' }], userData: '#cloud-config\n', schedulerHints: { group: 'g' } });
    expect(body).to.deep.equal({
      server: { name: 's', flavorRef: 'f', imageRef: 'i', networks: [{ uuid: 'n' }], user_data: Buffer.from('#cloud-config\n').toString('base64') },
      'OS-SCH-HNT:scheduler_hints': { group: 'g' },
    });
    expect(createServerBody({ name: 's', flavorRef: 'f', networks: 'none', keyName: 'k' }).server).to.include({ key_name: 'k', networks: 'none' });
  });
  it('password auth with a project scope by name', () => {
    expect(authRequestBody({ type: 'password', user: { name: 'demo', domain: { name: 'Default' } }, password: 'pw' }, { kind: 'project', project: { name: 'demo', domain: { id: 'default' } } }))
      .to.deep.equal({ auth: {
        identity: { methods: ['password'], password: { user: { name: 'demo', domain: { name: 'Default' }, password: 'pw' } } },
        scope: { project: { name: 'demo', domain: { id: 'default' } } },
      } });
  });
  it('application credential auth sends no scope', () => {
    expect(authRequestBody({ type: 'application-credential', credential: { id: 'ac' }, secret: 's' }, { kind: 'unscoped' }))
      .to.deep.equal({ auth: { identity: { methods: ['application_credential'], application_credential: { id: 'ac', secret: 's' } } } });
  });
  it('domain scope', () => {
    expect(authRequestBody({ type: 'password', user: { id: 'u' }, password: 'pw' }, { kind: 'domain', domain: { name: 'Managed' } }).auth)
      .to.have.property('scope').that.deep.equals({ domain: { name: 'Managed' } });
  });
  it('allocation candidate queries put forbidden traits behind !', () => {
    expect(candidateQuery({ resources: { VCPU: 2, MEMORY_MB: 2048 }, required: ['HW_CPU_X86_AVX2'], forbidden: ['CUSTOM_SLOW'] }))
      .to.deep.equal({ resources: 'VCPU:2,MEMORY_MB:2048', required: 'HW_CPU_X86_AVX2,!CUSTOM_SLOW', in_tree: undefined, limit: undefined });
  });
  it('a PROXYV2 pool carries the load-balancer 2.22 header, others none', () => {
    expect(poolCreateHeaders('PROXYV2', '2.22')).to.deep.equal({ 'OpenStack-API-Version': 'load-balancer 2.22' });
    expect(poolCreateHeaders('TCP', '2.22')).to.equal(undefined);
  });
  it('a create with nested pools carries the 2.22 header when any of them is PROXYV2', () => {
    expect(nestedPoolHeaders(['UDP', 'PROXYV2'], '2.22')).to.deep.equal({ 'OpenStack-API-Version': 'load-balancer 2.22' });
    expect(nestedPoolHeaders(['UDP', undefined], '2.22')).to.equal(undefined);
    expect(nestedPoolHeaders([], '2.22')).to.equal(undefined);
  });
  it('a fully populated load-balancer body nests listeners, default pools, members and monitors in Octavia\'s snake_case', () => {
    const body = createLoadBalancerBody({
      name: 'lb', vipSubnetId: 's', listeners: [
        { name: 'l', protocol: 'UDP', protocolPort: 53, allowedCidrs: ['198.51.100.0/24'], timeoutClientData: 1000, timeoutMemberData: 2000, defaultPool: {
          name: 'p', protocol: 'UDP', lbAlgorithm: 'SOURCE_IP',
          members: [{ address: '192.0.2.1', protocolPort: 53, subnetId: 's', name: 'm' }],
          healthmonitor: { name: 'h', type: 'UDP-CONNECT', delay: 5, timeout: 3, maxRetries: 2, maxRetriesDown: 4 },
        } },
        { name: 'bare', protocol: 'TCP', protocolPort: 80 },
      ],
    });
    expect(body).to.deep.equal({
      name: 'lb', vip_subnet_id: 's', listeners: [
        { name: 'l', protocol: 'UDP', protocol_port: 53, allowed_cidrs: ['198.51.100.0/24'], timeout_client_data: 1000, timeout_member_data: 2000, default_pool: {
          name: 'p', protocol: 'UDP', lb_algorithm: 'SOURCE_IP',
          members: [{ address: '192.0.2.1', protocol_port: 53, subnet_id: 's', name: 'm' }],
          healthmonitor: { name: 'h', type: 'UDP-CONNECT', delay: 5, timeout: 3, max_retries: 2, max_retries_down: 4 },
        } },
        { name: 'bare', protocol: 'TCP', protocol_port: 80 },
      ],
    });
    expect(createLoadBalancerBody({ name: 'lb', vipSubnetId: 's' })).to.deep.equal({ name: 'lb', vip_subnet_id: 's' });
  });
  it('a listener body carries a nested default_pool only when asked', () => {
    expect(createListenerBody({ name: 'l', loadbalancerId: 'lb', protocol: 'TCP', protocolPort: 443, defaultPoolId: 'p' }))
      .to.deep.equal({ name: 'l', default_pool_id: 'p', loadbalancer_id: 'lb', protocol: 'TCP', protocol_port: 443 });
    expect(createListenerBody({ name: 'l', loadbalancerId: 'lb', protocol: 'TCP', protocolPort: 443, defaultPool: { name: 'p', protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN' } }))
      .to.deep.equal({ name: 'l', loadbalancer_id: 'lb', protocol: 'TCP', protocol_port: 443, default_pool: { name: 'p', protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN' } });
  });
  it('queries repeat keys for lists and drop undefined', () => {
    expect(encodeQuery({ a: 1, b: ['x', 'y'], c: undefined, d: null, e: '^web\\.1$' })).to.equal('?a=1&b=x&b=y&e=%5Eweb%5C.1%24');
    expect(encodeQuery({})).to.equal('');
  });
  it('next links: Nova rel=next, Glance next; only their query is reused', () => {
    expect(nextHref({ servers_links: [{ rel: 'next', href: 'http://elsewhere/v2.1/servers/detail?limit=2&marker=m1' }] }, { collection: 'servers', next: 'links' }))
      .to.equal('http://elsewhere/v2.1/servers/detail?limit=2&marker=m1');
    expect(nextHref({ next: '/v2/images?marker=i1' }, { collection: 'images', next: 'glance-next' })).to.equal('/v2/images?marker=i1');
    expect(queryOfHref('/v2/images?marker=i1&tag=a&tag=b')).to.deep.equal({ marker: 'i1', tag: ['a', 'b'] });
  });
  it('backoff doubles up to the cap, with jitter in the upper half', () => {
    const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4].map((i) => backoffDelay(policy, i, () => 1))).to.deep.equal([100, 200, 400, 800, 1000]);
    expect([0, 1, 2].map((i) => backoffDelay(policy, i, () => 0))).to.deep.equal([50, 100, 200]);
  });
  it('microversions below what the clients rely on are refused', () => {
    expect(resolveMicroversions().compute).to.equal('2.90');
    expect(resolveMicroversions({ compute: '2.93' }).compute).to.equal('2.93');
    expect(() => resolveMicroversions({ compute: '2.79' })).to.throw(InvalidConfig);
    expect(() => resolveMicroversions({ volume: '3.10' })).to.throw(InvalidConfig);
    expect(() => resolveMicroversions({ compute: 'latest' })).to.throw(InvalidConfig);
  });
});
