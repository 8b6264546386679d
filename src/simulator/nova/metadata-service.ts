// The OpenStack metadata service as a guest reads it (`http://169.254.169.254/openstack/latest/meta_data.json`),
// served by nova-api-metadata behind Neutron's metadata proxy: the proxy names the instance in headers
// (X-Instance-ID, X-Tenant-ID, X-Instance-ID-Signature) and Nova answers for that instance
// (nova/api/metadata/handler.py, _handle_instance_id_request; base.py, InstanceMetadata). Here at
// `/metadata/openstack/{version}/meta_data.json` on the simulator's port, with the same headers and no token,
// so a test can read what a guest would: `meta` is the server's metadata, the same dict
// GET /servers/{id}/metadata answers — the in-guest linkage surface of openstack-provider.md.
// Differences from the real service (docs/simulator-differences.md #20): the proxy's signature is not checked,
// devices and dedicated_cpus are always empty, and only meta_data.json exists (no user_data, network_data,
// vendor_data, no EC2 tree).
import { randomBytes } from 'node:crypto';
import type { SimResponse } from '../http.js';
import type { Ctx, Router } from '../router.js';
import { keypairKey } from './model.js';

/** nova/api/metadata/base.py OPENSTACK_VERSIONS (Zed), then `latest`. */
export const METADATA_VERSIONS = ['2012-08-10', '2013-04-04', '2013-10-17', '2015-10-15', '2016-06-30', '2016-10-06', '2017-02-22', '2018-08-27', '2020-10-14', 'latest'];

/** Nova's default dhcp_domain: the guest's hostname is `<hostname>.novalocal`. */
const DHCP_DOMAIN = 'novalocal';

/** webob's plain answers (the metadata service is not the compute API: no JSON fault body). */
const text = (status: number, body: string): SimResponse => ({ status, raw: body, contentType: 'text/plain; charset=UTF-8' });

const header = (ctx: Ctx, name: string): string | undefined => {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The instance the proxy names, or Nova's answer when it cannot be served. */
const instanceOf = (ctx: Ctx) => {
  const instanceId = header(ctx, 'x-instance-id');
  if (!instanceId) return text(400, 'X-Instance-ID header is missing from request.');
  const tenantId = header(ctx, 'x-tenant-id');
  if (!tenantId) return text(400, 'X-Tenant-ID header is missing from request.');
  const server = ctx.sim.nova.servers.get(instanceId);
  // Nova logs a tenant mismatch and answers as if the instance did not exist
  if (!server || server.projectId !== tenantId) return text(404, 'The resource could not be found.');
  return server;
};

export function registerMetadataService(router: Router): void {
  const r = router.scope('nova', '/metadata');
  r.get('/openstack', () => text(200, METADATA_VERSIONS.join('\n')), { auth: false });
  r.get('/openstack/:version/meta_data.json', (ctx) => {
    if (!METADATA_VERSIONS.includes(ctx.p('version'))) return text(404, 'The resource could not be found.');
    const server = instanceOf(ctx);
    if ('status' in server) return server;
    const keypair = server.keyName === null ? undefined : ctx.sim.nova.keypairs.get(keypairKey(server.userId, server.keyName));
    // the same hostname the compute API shows (view.ts OS-EXT-SRV-ATTR:hostname)
    const hostname = server.name.toLowerCase().replace(/[^a-z0-9-]/g, '-');
    // base.py _metadata_as_json: `meta` only when the instance has metadata; later fields from the version that added them
    const since = (version: string) => ctx.p('version') === 'latest' || ctx.p('version') >= version;
    return {
      status: 200,
      body: {
        uuid: server.id,
        ...(Object.keys(server.metadata).length > 0 ? { meta: { ...server.metadata } } : {}),
        ...(keypair ? { public_keys: { [keypair.name]: keypair.publicKey }, keys: [{ name: keypair.name, type: keypair.type, data: keypair.publicKey }] } : {}),
        hostname: `${hostname}.${DHCP_DOMAIN}`,
        name: server.name,
        launch_index: 0,
        availability_zone: server.az,
        ...(since('2013-04-04') ? { random_seed: randomBytes(512).toString('base64') } : {}),
        ...(since('2015-10-15') ? { project_id: server.projectId } : {}),
        ...(since('2016-06-30') ? { devices: [] } : {}),
        ...(since('2020-10-14') ? { dedicated_cpus: [] } : {}),
      },
    };
  }, { auth: false });
}
