// Version discovery documents at each service root, unauthenticated, as the real services serve them.
import { MICROVERSIONS } from './microversion.js';
import { ok } from './http.js';
import type { Router } from './router.js';
import type { Sim } from './state.js';

const mv = (s: 'nova' | 'cinder' | 'placement' | 'octavia' | 'ironic') => MICROVERSIONS[s] as { min: string; max: string };

function keystone(sim: Sim) {
  return {
    id: 'v3.14', status: 'stable', updated: '2020-04-07T00:00:00Z',
    links: [{ rel: 'self', href: sim.url('/identity/v3/') }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.identity-v3+json' }],
  };
}

function nova(sim: Sim) {
  return {
    id: 'v2.1', status: 'CURRENT', version: mv('nova').max, min_version: mv('nova').min, updated: '2013-07-23T11:33:21Z',
    links: [{ rel: 'self', href: sim.url('/compute/v2.1/') }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.compute+json;version=2.1' }],
  };
}

function cinder(sim: Sim) {
  return {
    id: 'v3.0', status: 'CURRENT', version: mv('cinder').max, min_version: mv('cinder').min, updated: '2023-08-31T00:00:00Z',
    links: [{ rel: 'self', href: sim.url('/volume/v3/') }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.volume+json;version=3' }],
  };
}

export function registerVersions(router: Router): void {
  const pub = { auth: false };
  const add = (path: string, service: Parameters<Router['add']>[2], body: (sim: Sim) => unknown, status = 200) =>
    router.add('GET', path, service, (ctx) => ok(body(ctx.sim), status), pub);

  add('/identity', 'keystone', (sim) => ({ versions: { values: [keystone(sim)] } }), 300);
  add('/identity/v3', 'keystone', (sim) => ({ version: keystone(sim) }));
  add('/compute', 'nova', (sim) => ({
    versions: [{ id: 'v2.0', status: 'SUPPORTED', version: '', min_version: '', updated: '2011-01-21T11:33:21Z', links: [{ rel: 'self', href: sim.url('/compute/v2/') }] }, nova(sim)],
  }));
  add('/compute/v2.1', 'nova', (sim) => ({ version: nova(sim) }));
  const glance = (sim: Sim) => ({
    versions: ['2.16', '2.15', '2.9', '2.7', '2.5', '2.3', '2.1', '2.0'].map((v, i) => ({
      id: `v${v}`, status: i === 0 ? 'CURRENT' : 'SUPPORTED', links: [{ rel: 'self', href: sim.url('/image/v2/') }],
    })),
  });
  add('/image', 'glance', glance, 300);
  add('/image/versions', 'glance', glance);
  add('/volume', 'cinder', (sim) => ({ versions: [cinder(sim)] }), 300);
  add('/volume/v3', 'cinder', (sim) => ({ version: cinder(sim) }));
  add('/network', 'neutron', (sim) => ({ versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: sim.url('/network/v2.0/') }] }] }));
  add('/network/v2.0', 'neutron', (sim) => ({
    resources: ['network', 'subnet', 'port', 'security-group', 'security-group-rule', 'floatingip', 'router'].map((n) => ({
      name: n, collection: `${n}s`.replace('policys', 'policies'), links: [{ rel: 'self', href: sim.url(`/network/v2.0/${n}s`) }],
    })),
  }));
  const octavia = (sim: Sim) => ({
    versions: ['2.0', '2.1', '2.21', '2.22', '2.27'].map((v) => ({
      id: `v${v}`, status: v === mv('octavia').max ? 'CURRENT' : 'SUPPORTED', updated: '2022-09-01T00:00:00Z',
      links: [{ rel: 'self', href: sim.url('/load-balancer/v2') }],
    })),
  });
  add('/load-balancer', 'octavia', octavia);
  add('/load-balancer/v2', 'octavia', octavia);
  add('/placement', 'placement', () => ({
    versions: [{ id: 'v1.0', max_version: mv('placement').max, min_version: mv('placement').min, status: 'CURRENT', links: [{ rel: 'self', href: '' }] }],
  }));
  const ironicV1 = (sim: Sim) => ({
    id: 'v1', status: 'CURRENT', min_version: mv('ironic').min, version: mv('ironic').max,
    links: [{ href: sim.url('/baremetal/v1/'), rel: 'self' }],
  });
  add('/baremetal', 'ironic', (sim) => ({
    name: 'OpenStack Ironic API', description: 'Ironic is an OpenStack project which aims to provision baremetal machines.',
    default_version: ironicV1(sim), versions: [ironicV1(sim)],
  }));
  add('/baremetal/v1', 'ironic', (sim) => ({
    ...ironicV1(sim), media_types: [{ base: 'application/json', type: 'application/vnd.openstack.ironic.v1+json' }],
    nodes: [{ href: sim.url('/baremetal/v1/nodes/'), rel: 'self' }],
  }));
}
