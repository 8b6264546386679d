/**
 * SecurityGroups end to end (issue 17): the whole control plane on the embedded stores against the simulator
 * over HTTP. A SecurityGroup on net-a is created in its Identity's project as `security-group-<uid>` with its
 * rules exactly as the spec says (Neutron's default egress rules removed); a Server listing it waits for it,
 * then Nova's create carries the group's Neutron id, and the server's port is in the group; deleting the
 * Server then the group removes the group from Neutron and releases the finalizer.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { networkManifest, planeOptions, serverManifest, until } from './support/plane.js';

interface Condition { type: string; status: string; reason: string; message: string }

const groupManifest = `apiVersion: regent.dev/v1alpha1
kind: SecurityGroup
metadata: { name: web-sg, labels: { regent.dev/network: net-a } }
spec:
  networkID: net-a
  description: web tier
  rules:
    - { direction: ingress, protocol: tcp, portRangeMin: 22, portRangeMax: 22, remoteIPPrefix: 10.0.0.0/8 }
    - { direction: egress, protocol: any }
`;

describe('e2e: SecurityGroups (issue 17)', function () {
  this.timeout(90_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane | undefined;
  let admin: OpenStackSession;
  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-sg-'));
    admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'));
  });
  afterEach(async () => {
    await plane?.stop().catch(() => undefined);
    plane = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the group with exactly its rules, creates the Server in it, and deletes both', async () => {
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane?.isLeader());
    const server = serverManifest('web-1', SEED.images.cirros).replace('  sshInjection: none\n', '  sshInjection: none\n  securityGroups: [web-sg]\n');
    await applyManifests(plane.source, [networkManifest, groupManifest, server].join('---\n'));
    const group = await until('the group is Available', async () => {
      const g = await plane!.source.get('SecurityGroup', 'default', 'web-sg');
      const s = g?.status as { securityGroupID?: string; phase?: string; conditions?: Condition[] } | undefined;
      return s?.conditions?.find((c) => c.type === 'Available')?.status === 'True' && s.securityGroupID ? { uid: g!.metadata.uid, id: s.securityGroupID, phase: s.phase } : undefined;
    }, 30_000);
    expect(group.phase).to.equal('Ready');
    // in Neutron under its deterministic name, with exactly the spec's rules
    const neutron = await admin.neutron.listSecurityGroups({ name: `security-group-${group.uid}` });
    expect(neutron.map((g) => g.id)).to.deep.equal([group.id]);
    const rules = (await admin.neutron.listSecurityGroupRules({ security_group_id: group.id })).map((r) => [r.direction, r.ethertype, r.protocol ?? null, r.port_range_min ?? null, r.port_range_max ?? null, r.remote_ip_prefix ?? null]);
    expect(rules).to.have.deep.members([['ingress', 'IPv4', 'tcp', 22, 22, '10.0.0.0/8'], ['egress', 'IPv4', null, null, null, null]]);
    // the server: Nova's create names the group by its Neutron id; its port is in it
    const serverID = await until('the server runs', async () => {
      const s = (await plane!.source.get('Server', 'default', 'web-1'))?.status as { phase?: string; serverID?: string } | undefined;
      return s?.phase === 'Running' ? s.serverID : undefined;
    }, 60_000);
    const post = sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'));
    expect(post).to.have.length(1);
    expect((post[0]?.body as { server?: { security_groups?: unknown } }).server?.security_groups).to.deep.equal([{ name: group.id }]);
    const ports = await admin.neutron.listPorts({ device_id: serverID });
    expect(ports.map((p) => (p as { security_groups?: string[] }).security_groups)).to.deep.equal([[group.id]]);
    // SpecRealized no longer names spec.securityGroups
    const conditions = ((await plane.source.get('Server', 'default', 'web-1'))?.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
    expect(JSON.stringify(conditions.find((c) => c.type === 'SpecRealized') ?? {})).to.not.include('spec.securityGroups');
    // the list changed after the create: not sent to Nova (not implemented), so the status must not claim it
    const stored = await plane.source.get('Server', 'default', 'web-1');
    await plane.source.update({ ...stored!, spec: { ...stored!.spec, securityGroups: [] } } as never);
    await until('SpecRealized names the changed list', async () => {
      const c = (((await plane!.source.get('Server', 'default', 'web-1'))?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((x) => x.type === 'SpecRealized');
      return c?.status === 'False' && c.message.includes('spec.securityGroups') && c.message.includes('created with (web-sg)');
    }, 30_000);
    // delete the server, then the group: gone from Neutron, the resource released
    await plane.source.delete('Server', 'default', 'web-1');
    await until('the server is gone', async () => (await plane!.source.get('Server', 'default', 'web-1')) === undefined, 60_000);
    await plane.source.delete('SecurityGroup', 'default', 'web-sg');
    await until('the group is gone', async () => (await plane!.source.get('SecurityGroup', 'default', 'web-sg')) === undefined, 60_000);
    expect(await admin.neutron.listSecurityGroups({ name: `security-group-${group.uid}` })).to.deep.equal([]);
  });

  it('a Server listing a group that is not realized waits, and nothing is sent to Nova', async () => {
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane?.isLeader());
    const server = serverManifest('web-2', SEED.images.cirros).replace('  sshInjection: none\n', '  sshInjection: none\n  securityGroups: [later-sg]\n');
    await applyManifests(plane.source, [networkManifest, server].join('---\n'));
    await until('the network exists', async () => ((await plane!.source.get('Network', 'default', 'net-a'))?.status as { networkID?: string } | undefined)?.networkID, 30_000);
    // a negative check (nothing sent to Nova while the group is missing), so a fixed wait: the Server's pass
    // waits 2 s between tries, and this sees at least one try after the Network exists
    await new Promise((r) => setTimeout(r, 3_000));
    expect(sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'))).to.have.length(0);
    // the group appears: its realization wakes the Server, which is created in it
    await applyManifests(plane.source, groupManifest.replace('web-sg', 'later-sg'));
    await until('the server runs', async () => ((await plane!.source.get('Server', 'default', 'web-2'))?.status as { phase?: string } | undefined)?.phase === 'Running', 60_000);
    const body = sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers'))[0]?.body as { server?: { security_groups?: Array<{ name: string }> } };
    const id = ((await plane.source.get('SecurityGroup', 'default', 'later-sg'))?.status as { securityGroupID?: string }).securityGroupID;
    expect(body.server?.security_groups).to.deep.equal([{ name: id }]);
  });

  it('a server that errors before its first boot is recreated in its groups too (L5\'s create carries them, not only the first)', async () => {
    sim.control.configure({ nova: { bootRules: [{ match: '^web-3$', outcome: 'error', phase: 'boot', message: 'No valid host was found.' }] } });
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane?.isLeader());
    const server = serverManifest('web-3', SEED.images.cirros).replace('  sshInjection: none\n', '  sshInjection: none\n  securityGroups: [web-sg]\n');
    await applyManifests(plane.source, [networkManifest, groupManifest, server].join('---\n'));
    const posts = () => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/servers') && c.status === 202);
    const uid = (await until('web-3 object', async () => plane!.source.get('Server', 'default', 'web-3'))).metadata.uid;
    await until('a retry create', async () => (await plane!.store.readStream(`server-lifecycle-${uid}`)).some((e) => e.type === 'serverLifecycle.recreateSubmitted'), 60_000);
    sim.control.configure({ nova: { bootRules: [] } });
    await until('the recreated server runs', async () => ((await plane!.source.get('Server', 'default', 'web-3'))?.status as { phase?: string } | undefined)?.phase === 'Running', 60_000);
    const id = ((await plane.source.get('SecurityGroup', 'default', 'web-sg'))?.status as { securityGroupID?: string }).securityGroupID;
    const groupsSent = posts().map((c) => (c.body as { server?: { security_groups?: unknown } }).server?.security_groups);
    expect(groupsSent.length, 'the first create and at least one retry').to.be.within(2, 3);
    for (const sent of groupsSent) expect(sent, 'every create carries the group').to.deep.equal([{ name: id }]);
  });
});
