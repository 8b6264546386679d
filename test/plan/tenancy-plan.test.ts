/**
 * `regent plan` of the tenancy kinds (issue 32), over the simulator: per kind, a new one (the request the service
 * would get, with the rule that authorizes it and what it waits for after), one as it is (nothing to decide), a
 * change `apply` refuses (immutable fields: an Identity, Network or SecurityGroup that would leave its scope, shown
 * with apply's own message) or that the controller refuses (a Region whose Secret names another Keystone: C2; an
 * Identity naming a Region that does not exist; a Network whose Identity is not realized: R2), and the deletions
 * with their destructive effects (keystone.deleteProject, neutron.deleteNetwork, neutron.deleteSecurityGroup). Every
 * plan here is read-only (the simulator saw only GETs and Keystone token issues, the event store's head and every
 * stored object are as they were) and carries no secret (the Regions' admin password, the identities' passwords,
 * application-credential secrets and private keys appear nowhere in its JSON; a password it would send is a digest).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { applyManifests, deleteResource } from '../../src/kube/cli/manifests.js';
import { KIND_NAMES } from '../../src/resources/index.js';
import { SECRET_KEY } from '../../src/events/secret-shapes.js';
import { exitCodeOf, type Plan, type ResourcePlan } from '../../src/plan/report.js';
import type { PlanOptions } from '../../src/plan/planner.js';
import type { RuleRow } from '../../src/plan/rules.js';
import { IDENTITY_LIFECYCLE_RULES, TENANCY } from '../../src/plan/coverage/tenancy.js';
import { LIFECYCLE_RULES } from '../../src/plan/coverage/lifecycle.js';
import { identityLifecycleStream, type IdentityContext } from '../../machines/identity-lifecycle.js';
import {
  PHYSNET,
  VLAN_RANGE,
  apply,
  connected,
  identityManifest,
  networkManifest,
  present,
  realized,
  securityGroupManifest,
  sshCaManifest,
  startTenancyRig,
  type TenancyRig,
} from './support/tenancy-rig.js';

/** What a read is: Keystone's role checks are HEADs. */
const READS = ['GET', 'HEAD'];

/** `<pass> <event> <rule>[ DESTRUCTIVE]` of each decision. */
const decisionsOf = (resource: ResourcePlan | undefined): string[] =>
  (resource?.decisions ?? []).map((d) => `${d.pass} ${d.event} ${d.rule?.id ?? '—'}${d.destructive ? ' DESTRUCTIVE' : ''}`);

describe('plan: the tenancy kinds (Region, Identity, Network, SecurityGroup, SSHCertificateAuthority)', function () {
  this.timeout(120_000);
  let rig: TenancyRig;
  let identityUid: string;

  /** Every secret value the rig's stores hold (the Regions' clouds.yaml passwords, the identities' Secrets). */
  const secretValues = async (): Promise<string[]> => {
    const values = [String((rig.adminCloud.auth as { password?: string }).password ?? '')];
    for (const summary of await rig.source.secrets.list('default')) {
      const data = (await rig.source.secrets.get('default', summary.name))?.data ?? {};
      for (const [key, value] of Object.entries(data)) if (SECRET_KEY.test(key)) values.push(value);
    }
    return values.filter((v) => v.length >= 8);
  };

  /** A plan, checked read-only and free of secrets. */
  const planOf = async (text: string, extra: Partial<PlanOptions> = {}): Promise<Plan> => {
    const head = await rig.store.lastPosition();
    const objects = await Promise.all(KIND_NAMES.map(async (kind) => JSON.stringify((await rig.source.list(kind)).items)));
    const firstCall = rig.sim.calls().length;
    const planned = await rig.plan(text, extra);
    const sent = rig.sim.calls().slice(firstCall);
    expect(sent.filter((c) => !READS.includes(c.method) && !(c.method === 'POST' && c.path === '/identity/v3/auth/tokens')).map((c) => `${c.method} ${c.path}`), 'the plan sent only reads').to.deep.equal([]);
    expect(await rig.store.lastPosition(), 'the event store head').to.equal(head);
    expect(await Promise.all(KIND_NAMES.map(async (kind) => JSON.stringify((await rig.source.list(kind)).items))), 'the stored objects').to.deep.equal(objects);
    const json = JSON.stringify(planned);
    for (const secret of await secretValues()) expect(json.includes(secret), 'a secret value in the plan').to.equal(false);
    return planned;
  };

  before(async () => {
    rig = await startTenancyRig();
    await apply(rig, [rig.region('region-one'), rig.region('region-vlan', { vlan: true }), identityManifest('acme', 'region-one'), identityManifest('acme-v', 'region-vlan')].join('---\n'));
    await rig.settle('Region', 'region-one', connected);
    await rig.settle('Region', 'region-vlan', connected);
    await rig.settle('Identity', 'acme', realized);
    await rig.settle('Identity', 'acme-v', realized);
    identityUid = (await rig.source.get('Identity', 'default', 'acme'))?.metadata.uid as string;
    await apply(rig, networkManifest('net-a', 'acme'));
    await rig.settle('Network', 'net-a', present);
    await apply(rig, securityGroupManifest('sg-a', 'net-a', [{ direction: 'ingress', protocol: 'tcp', port: 22 }]));
    await rig.settle('SecurityGroup', 'sg-a', present);
  });
  after(async () => rig?.close());

  describe('Region', () => {
    it('a new one: connected (C1), no effect (connecting is a read), its finalizer; then nothing more to decide', async () => {
      const plan = await planOf(rig.region('region-two'));
      const [region] = plan.resources;
      expect(region).to.include({ kind: 'Region', verdict: 'planned', apply: 'created', destructive: false });
      expect(decisionsOf(region)).to.deep.equal(['1 regionConnection.connected C1']);
      expect(region?.decisions[0]?.effects).to.deep.equal([]);
      expect(region?.writes.map((w) => `${w.op} ${w.detail ?? ''}`)).to.deep.equal(['addFinalizer regent.dev/region']);
      expect(region?.stops).to.match(/^nothing more to decide until the cloud changes \(next pass in 60 s: connected/);
      expect(exitCodeOf(plan)).to.equal(0);
    });

    it('one as it is: nothing to decide', async () => {
      const plan = await planOf(rig.region('region-one'));
      expect(plan.resources[0]).to.include({ apply: 'unchanged', verdict: 'planned' });
      expect(plan.resources[0]?.decisions).to.deep.equal([]);
      expect(plan.resources[0]?.stops).to.match(/^nothing to decide/);
    });

    it("a Secret for another Keystone is the controller's refusal as it is: unusable (C2, EndpointMismatch), nothing realized there", async () => {
      await rig.source.secrets.put('default', 'elsewhere-credentials', { 'clouds.yaml': rig.sim.cloudsYaml().replaceAll(rig.sim.url, 'http://127.0.0.1:9'), cloud: 'sim-admin' });
      const plan = await planOf(rig.region('region-one', { secret: 'elsewhere-credentials' }));
      const [region] = plan.resources;
      expect(region).to.include({ apply: 'configured', verdict: 'planned' });
      expect(decisionsOf(region)).to.deep.equal(['1 regionConnection.unusable C2']);
      expect(region?.passes[0]).to.equal('next pass in 15 s: region unusable: EndpointMismatch');
      expect(region?.decisions[0]?.then).to.match(/^looks again in 15 s/);
    });

    it("an invalid spec is refused before anything is planned, with apply's own message", async () => {
      const text = rig.region('region-bad').replace(/endpoint: .*/, 'endpoint: ftp://nowhere');
      const applied = await applyManifests(rig.source, text, { file: 'plan.yaml' }).then(
        () => 'applied',
        (e: Error) => e.message,
      );
      expect(applied).to.match(/^plan\.yaml: document 1: .*endpoint/);
      const planned = await rig.plan(text).then(
        () => 'planned',
        (e: Error) => e.message,
      );
      expect(planned).to.equal(applied);
      expect(await rig.source.get('Region', 'default', 'region-bad')).to.equal(undefined);
    });

    it('its deletion waits while Identities name it (C3)', async () => {
      const plan = await planOf(rig.region('region-one'), { deleting: true });
      const [region] = plan.resources;
      expect(region).to.include({ apply: 'deleted', destructive: false });
      expect(decisionsOf(region)).to.deep.equal(['1 regionConnection.deleting C3']);
      expect(region?.passes[0]).to.equal('next pass in 5 s: deletion waits for Identity/acme');
    });
  });

  describe('Identity', () => {
    it('a new one: the project create (I1) with the request Keystone would get, then the wait', async () => {
      const plan = await planOf(identityManifest('beta', 'region-one'));
      const [identity] = plan.resources;
      expect(identity).to.include({ kind: 'Identity', verdict: 'planned', apply: 'created', destructive: false });
      expect(decisionsOf(identity)).to.deep.equal(['1 identityLifecycle.projectRequested I1']);
      const [effect] = identity?.decisions[0]?.effects ?? [];
      expect(effect?.type).to.equal('keystone.createProject');
      expect(effect?.params).to.include({ domainId: rig.domainId, region: 'default/region-one' });
      expect(effect?.calls).to.have.length(1);
      expect(effect?.calls[0]).to.deep.include({ service: 'identity', method: 'POST', path: '/projects' });
      expect((effect?.calls[0]?.body as { project: Record<string, unknown> }).project).to.include({ domain_id: rig.domainId, name: effect?.params.name });
      expect(identity?.stops).to.equal('after Keystone accepts the project create: the next pass creates the user');
    });

    it("the user's create (I2): the password it would send is a sha256: digest, never stored in the plan's world", async () => {
      await apply(rig, identityManifest('gamma', 'region-one'));
      await rig.pass('Identity', 'gamma'); // I1, for real: the project exists now
      const before = await rig.source.secrets.list('default');
      const plan = await planOf(identityManifest('gamma', 'region-one'));
      const [identity] = plan.resources;
      expect(decisionsOf(identity)).to.deep.equal(['1 identityLifecycle.userRequested I2']);
      const [call] = identity?.decisions[0]?.effects[0]?.calls ?? [];
      expect(call).to.deep.include({ service: 'identity', method: 'POST', path: '/users' });
      expect((call?.body as { user: { password: string } }).user.password).to.match(/^sha256:[0-9a-f]{64}$/);
      // the handler stores the password in the identity's Secret before the create: in the plan, only recorded
      expect(await rig.source.secrets.list('default')).to.deep.equal(before);
    });

    it('one as it is (realized): nothing to decide — its credential checked with a Keystone token issue, which creates nothing', async () => {
      const plan = await planOf(identityManifest('acme', 'region-one'));
      const [identity] = plan.resources;
      expect(identity).to.include({ apply: 'unchanged', verdict: 'planned' });
      expect(identity?.decisions).to.deep.equal([]);
      expect(identity?.stops).to.equal('nothing to decide (next pass in 300 s: realized)');
    });

    it("moving it to another Region, organization or project is refused with apply's own message (its cloud resources cannot follow)", async () => {
      for (const [text, field] of [
        [identityManifest('acme', 'region-vlan'), 'regionRef'],
        [identityManifest('acme', 'region-one', { organization: 'other' }), 'organizationID'],
        [identityManifest('acme', 'region-one', { project: 'other' }), 'projectID'],
      ] as const) {
        const applied = await applyManifests(rig.source, text, { file: 'plan.yaml' }).then(
          () => 'applied',
          (e: Error) => e.message,
        );
        expect(applied).to.include(`${field} is immutable`);
        const plan = await planOf(text);
        expect(plan.resources[0]).to.include({ verdict: 'refused', refusal: applied });
        expect(exitCodeOf(plan)).to.equal(1);
      }
    });

    it("an Identity naming a Region that does not exist: the controller's decision as it is (regionUnavailable: no label in the source)", async () => {
      const plan = await planOf(identityManifest('orphan', 'region-nowhere'));
      const [identity] = plan.resources;
      expect(decisionsOf(identity)).to.deep.equal(['1 identityLifecycle.regionUnavailable —']);
      expect(identity?.passes[0]).to.equal('next pass in 15 s: region region-nowhere unavailable: RegionNotFound');
    });

    it('its deletion waits while a Network of it remains (D1)', async () => {
      const plan = await planOf(identityManifest('acme', 'region-one'), { deleting: true });
      expect(decisionsOf(plan.resources[0])).to.deep.equal(['1 identityLifecycle.waitingForDependents D1']);
      expect(plan.destructive).to.equal(false);
    });

    it('its deletion without dependents: the arm (D2), then the first part deleted (D3, nova.deleteKeypair, DESTRUCTIVE); with only its project left: keystone.deleteProject, DESTRUCTIVE', async () => {
      await apply(rig, identityManifest('doomed', 'region-one'));
      await rig.settle('Identity', 'doomed', realized);
      const first = await planOf(identityManifest('doomed', 'region-one'), { deleting: true });
      expect(decisionsOf(first.resources[0])).to.deep.equal(['1 identityLifecycle.deleteArmed D2', '2 identityLifecycle.keypairDeleteRequested D3 DESTRUCTIVE']);
      expect(first.resources[0]?.decisions[1]?.effects.map((e) => e.type)).to.deep.equal(['nova.deleteKeypair']);
      expect(exitCodeOf(first)).to.equal(2);
      // for real: the deletion, its arm, and the keypair, the credential and the user deleted by three passes
      await deleteResource(rig.source, 'Identity', 'doomed');
      for (let i = 0; i < 4; i++) {
        await rig.pass('Identity', 'doomed');
        rig.sim.clock.advance(1_000);
      }
      const uid = (await rig.source.get('Identity', 'default', 'doomed'))?.metadata.uid as string;
      const context = (await rig.engine.load(identityLifecycleStream(uid))).snapshot.context as IdentityContext;
      expect([context.userId, context.keypair, context.credential]).to.deep.equal([null, null, null]);
      const last = await planOf(identityManifest('doomed', 'region-one'), { deleting: true });
      const [identity] = last.resources;
      expect(decisionsOf(identity)).to.deep.equal(['1 identityLifecycle.projectDeleteRequested D3 DESTRUCTIVE']);
      const [effect] = identity?.decisions[0]?.effects ?? [];
      expect(effect).to.deep.include({ type: 'keystone.deleteProject', destructive: true });
      expect(effect?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`DELETE /projects/${context.projectId ?? ''}`]);
      expect(identity?.stops).to.equal('after Keystone accepts the project delete: the next pass confirms nothing Regent created remains and drops the finalizer');
      expect(last.destructive).to.equal(true);
    });
  });

  describe('Network', () => {
    it('a new one: the create (L2) with the request Neutron would get, and the scope seen (R1)', async () => {
      const plan = await planOf(networkManifest('net-b', 'acme', { prefix: '10.1.0.0/24', dns: ['192.0.2.53'] }));
      const [network] = plan.resources;
      expect(network).to.include({ kind: 'Network', apply: 'created', destructive: false });
      expect(decisionsOf(network)).to.deep.equal(['1 networkLifecycle.createSubmitted L2', '1 scopeReachability.reachable R1']);
      const [effect] = network?.decisions[0]?.effects ?? [];
      expect(effect?.type).to.equal('neutron.createNetwork');
      expect(effect?.params.desired).to.deep.include({ cidr: '10.1.0.0/24', dnsNameservers: ['192.0.2.53'] });
      expect(effect?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal(['POST /networks']);
      expect(network?.stops).to.equal('after Neutron accepts the network create: the next pass adopts the network and its subnet by exact name');
      expect(network?.writes.map((w) => `${w.op} ${w.detail ?? ''}`)).to.include('addFinalizer regent.dev/network');
    });

    it("a new one on a Region with provider networks: the VLAN id (V1), then the create carrying it (L2), sent by the Region's credentials into the Identity's project", async () => {
      const plan = await planOf(networkManifest('net-v', 'acme-v', { prefix: '10.2.0.0/24' }));
      const [network] = plan.resources;
      expect(decisionsOf(network)).to.deep.equal(['1 vlanAllocation.allocated V1', '1 networkLifecycle.createSubmitted L2', '1 scopeReachability.reachable R1']);
      expect(network?.decisions[1]?.effects[0]?.params.desired).to.deep.include({ physicalNetwork: PHYSNET, segmentationId: VLAN_RANGE.minID });
      const body = (network?.decisions[1]?.effects[0]?.calls[0]?.body as { network: Record<string, unknown> }).network;
      expect(body).to.include({ 'provider:network_type': 'vlan', 'provider:physical_network': PHYSNET, 'provider:segmentation_id': VLAN_RANGE.minID });
      expect(body.project_id).to.be.a('string');
    });

    it('one as it is: nothing to decide; its DNS servers changed: only the new generation noted, no effect (an existing network is not updated)', async () => {
      const plan = await planOf(networkManifest('net-a', 'acme'));
      expect(plan.resources[0]).to.include({ apply: 'unchanged' });
      expect(plan.resources[0]?.decisions).to.deep.equal([]);
      expect(plan.resources[0]?.stops).to.equal('nothing to decide (done: present)');
      const changed = await planOf(networkManifest('net-a', 'acme', { dns: ['192.0.2.53'] }));
      expect(changed.resources[0]).to.include({ apply: 'configured', destructive: false });
      expect(decisionsOf(changed.resources[0])).to.deep.equal(['1 networkLifecycle.present —']);
      expect(changed.resources[0]?.stops).to.equal('nothing: the network is there (a changed dnsNameservers is not applied to an existing network)');
    });

    it("moving it to another Identity, or another prefix, is refused with apply's own message", async () => {
      for (const [text, field] of [
        [networkManifest('net-a', 'acme-v'), 'identityRef'],
        [networkManifest('net-a', 'acme', { prefix: '10.9.0.0/24' }), 'prefix'],
      ] as const) {
        const applied = await applyManifests(rig.source, text, { file: 'plan.yaml' }).then(
          () => 'applied',
          (e: Error) => e.message,
        );
        expect(applied).to.include(`${field} is immutable`);
        const plan = await planOf(text);
        expect(plan.resources[0]).to.include({ verdict: 'refused', refusal: applied });
      }
    });

    it("one whose Identity is not realized: the controller's verdict as it is — unreachable (R2) naming the Identity, nothing created", async () => {
      const plan = await planOf([identityManifest('late', 'region-one'), networkManifest('net-late', 'late')].join('---\n'));
      const network = plan.resources.find((r) => r.kind === 'Network');
      expect(decisionsOf(network)).to.deep.equal(['1 scopeReachability.unreachable R2']);
      expect(network?.passes[0]).to.equal('next pass in 5 s: waiting: Identity default/late: is not realized yet (no application credential)');
    });

    it('its deletion: the arm (L3), then the delete of the network Neutron shows (L3, neutron.deleteNetwork, DESTRUCTIVE)', async () => {
      const plan = await planOf(networkManifest('net-a', 'acme'), { deleting: true });
      const [network] = plan.resources;
      expect(decisionsOf(network)).to.deep.equal(['1 networkLifecycle.deleteArmed L3', '2 networkLifecycle.deleteSubmitted L3 DESTRUCTIVE']);
      const [effect] = network?.decisions[1]?.effects ?? [];
      expect(effect?.type).to.equal('neutron.deleteNetwork');
      expect(effect?.calls.map((c) => `${c.method} ${c.service}`)).to.deep.equal(['DELETE network']);
      expect(exitCodeOf(plan)).to.equal(2);
    });
  });

  describe('SecurityGroup', () => {
    it('a new one: the create (L2) with its rules, and the request Neutron would get', async () => {
      const plan = await planOf(securityGroupManifest('sg-b', 'net-a', [{ direction: 'ingress', protocol: 'tcp', port: 443 }], 'web'));
      const [group] = plan.resources;
      expect(decisionsOf(group)).to.deep.equal(['1 securityGroupLifecycle.createSubmitted L2', '1 scopeReachability.reachable R1']);
      const [effect] = group?.decisions[0]?.effects ?? [];
      expect(effect?.params.desired).to.deep.include({ description: 'web', rules: [{ direction: 'ingress', protocol: 'tcp', portRangeMin: 443, portRangeMax: 443 }] });
      expect(effect?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal(['POST /security-groups']);
      expect((effect?.calls[0]?.body as { security_group: Record<string, unknown> }).security_group).to.include({ description: 'web' });
    });

    it('one as it is: nothing to decide; its rules changed: only the new generation noted (the pass makes the rules only when it creates a group), no effect', async () => {
      const same = await planOf(securityGroupManifest('sg-a', 'net-a', [{ direction: 'ingress', protocol: 'tcp', port: 22 }]));
      expect(same.resources[0]).to.include({ apply: 'unchanged' });
      expect(same.resources[0]?.decisions).to.deep.equal([]);
      const changed = await planOf(securityGroupManifest('sg-a', 'net-a', [{ direction: 'ingress', protocol: 'tcp', port: 80 }]));
      expect(changed.resources[0]).to.include({ apply: 'configured', destructive: false });
      expect(decisionsOf(changed.resources[0])).to.deep.equal(['1 securityGroupLifecycle.present —']);
      expect(changed.resources[0]?.decisions[0]?.effects).to.deep.equal([]);
      expect(changed.resources[0]?.stops).to.equal('nothing: the group is there (a changed rule list is not applied to an existing group: only a create makes its rules)');
    });

    it("moving it to another Network is refused with apply's own message", async () => {
      const text = securityGroupManifest('sg-a', 'net-v', [{ direction: 'ingress', protocol: 'tcp', port: 22 }]);
      const applied = await applyManifests(rig.source, text, { file: 'plan.yaml' }).then(
        () => 'applied',
        (e: Error) => e.message,
      );
      expect(applied).to.include('networkID is immutable');
      expect((await planOf(text)).resources[0]).to.include({ verdict: 'refused', refusal: applied });
    });

    it('one on a Network not realized yet: no lifecycle decision, the pass waits for it (its scope, the Identity, is seen: R1)', async () => {
      const plan = await planOf([networkManifest('net-c', 'acme', { prefix: '10.3.0.0/24' }), securityGroupManifest('sg-c', 'net-c', [])].join('---\n'));
      const group = plan.resources.find((r) => r.kind === 'SecurityGroup');
      expect(decisionsOf(group)).to.deep.equal(['1 scopeReachability.reachable R1']);
      expect(group?.stops).to.equal('nothing more to decide until the cloud changes (next pass in 2 s: waiting for Network net-c)');
    });

    it('its deletion: the arm (L3), then the delete (L3, neutron.deleteSecurityGroup, DESTRUCTIVE)', async () => {
      const plan = await planOf(securityGroupManifest('sg-a', 'net-a', [{ direction: 'ingress', protocol: 'tcp', port: 22 }]), { deleting: true });
      const [group] = plan.resources;
      expect(decisionsOf(group)).to.deep.equal(['1 securityGroupLifecycle.deleteArmed L3', '2 securityGroupLifecycle.deleteSubmitted L3 DESTRUCTIVE']);
      expect(group?.decisions[1]?.effects.map((e) => `${e.type} ${e.calls.map((c) => c.method).join(',')}`)).to.deep.equal(['neutron.deleteSecurityGroup DELETE']);
    });
  });

  describe('SSHCertificateAuthority', () => {
    it('a new one: planned, and there is nothing to decide (no machine, no pass): nothing written', async () => {
      const plan = await planOf(sshCaManifest('ca-a'));
      expect(plan.resources[0]).to.include({ kind: 'SSHCertificateAuthority', verdict: 'planned', apply: 'created', destructive: false });
      expect(plan.resources[0]?.decisions).to.deep.equal([]);
      expect(plan.resources[0]?.writes).to.deep.equal([]);
      expect(plan.resources[0]?.stops).to.match(/^nothing to decide/);
    });

    it("moving it to another organization or project is refused with apply's own message", async () => {
      await apply(rig, sshCaManifest('ca-b'));
      const text = sshCaManifest('ca-b', { organization: 'other' });
      const applied = await applyManifests(rig.source, text, { file: 'plan.yaml' }).then(
        () => 'applied',
        (e: Error) => e.message,
      );
      expect(applied).to.include('organizationID is immutable');
      expect((await planOf(text)).resources[0]).to.include({ verdict: 'refused', refusal: applied });
      expect((await planOf(sshCaManifest('ca-b', { description: 'rotated' }))).resources[0]).to.include({ verdict: 'planned', apply: 'configured' });
    });
  });

  it("the identities' secrets exist (so their absence from every plan above means something)", async () => {
    const secret = await rig.source.secrets.get('default', `regent-identity-${identityUid}`);
    expect(Object.keys(secret?.data ?? {})).to.include.members(['password', 'application_credential_secret', 'ssh_private_key']);
    expect((await secretValues()).length).to.be.greaterThan(3);
  });
});

/**
 * The tenancy rule tables are the sources' own labels: each row's label is one the machine's source gives a
 * transition with that outcome — in the transition's own comment, in the comment heading the state (or the run of
 * transitions) it sits in, or, for a write-ahead builder (`arm`, `submit`, `confirm`, …), in the builder's own
 * comment in machines/write-ahead-delete.ts.
 */
describe('plan: the tenancy rule tables are the labels the machine sources give', () => {
  const LABEL = /(?<![\w-])([A-Z]\d+s?|U)(?![\w-])/g;
  const BUILDERS: Record<string, { outcome: string; labels: string[] }> = {
    arm: { outcome: 'deleteArmed', labels: ['W1'] },
    submit: { outcome: 'deleteSubmitted', labels: ['W2'] },
    resend: { outcome: 'deleteResubmitted', labels: ['W4'] },
    inProgress: { outcome: 'deleteInProgress', labels: ['W3', 'W4'] },
    confirm: { outcome: 'deleted', labels: ['W3'] },
    withdraw: { outcome: 'deletionWithdrawn', labels: ['W2'] },
  };
  const BUILDER = /\b(arm|submit|resend|inProgress|confirm|withdraw)\(\{/;
  const commentOf = (line: string): string => (line.includes('//') ? line.slice(line.indexOf('//')) : '');
  const labelsIn = (text: string): string[] => [...text.matchAll(LABEL)].map((m) => m[1] as string);
  const isTransition = (line: string): boolean => line.includes("outcome('") || BUILDER.test(line);
  const isStructural = (line: string): boolean => /^\s*(\w+|'[^']+'): [{[]\s*$/.test(line);

  /** Each transition of a source, with its outcome and the labels its comments give it. */
  const transitionsOf = (file: string): Array<{ outcome: string; labels: string[] }> => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const out: Array<{ outcome: string; labels: string[] }> = [];
    lines.forEach((line, index) => {
      if (!isTransition(line)) return;
      const named = /outcome\('(\w+)'\)/.exec(line)?.[1];
      const builder = BUILDER.exec(line)?.[1];
      const outcome = named ?? /\}\s*,\s*'(\w+)'\)/.exec(line)?.[1] ?? (builder ? BUILDERS[builder]?.outcome : undefined);
      if (!outcome) return;
      const labels = [...labelsIn(commentOf(line)), ...(builder ? (BUILDERS[builder]?.labels ?? []) : [])];
      // up through the run of transitions and the state's opening lines, collecting the comments that head them
      for (let i = index - 1; i >= 0; i--) {
        const above = lines[i] as string;
        if (above.trim().startsWith('//')) labels.push(...labelsIn(above));
        else if (!isTransition(above) && !isStructural(above)) break;
      }
      out.push({ outcome, labels });
    });
    return out;
  };
  const wrongRows = (rows: readonly RuleRow[], file: string): string[] => {
    const transitions = transitionsOf(file);
    return rows.flatMap((row) => {
      const labels = [...new Set(transitions.filter((t) => t.outcome === row.outcome).flatMap((t) => t.labels))];
      return labels.includes(row.rule.id) ? [] : [`${row.outcome}: table ${row.rule.id}, source ${labels.join('/') || 'none'}`];
    });
  };

  for (const [machine, file] of [
    ['regionConnection', 'machines/region-connection.ts'],
    ['identityLifecycle', 'machines/identity-lifecycle.ts'],
    ['scopeReachability', 'machines/scope-reachability.ts'],
    ['vlanAllocation', 'machines/vlan-allocation.ts'],
  ] as const) {
    it(`${machine}: each row's label is the one ${file} gives a transition with that outcome`, () => {
      const rows = TENANCY.rules[machine] ?? [];
      expect(rows.length).to.be.greaterThan(0);
      expect(wrongRows(rows, file)).to.deep.equal([]);
    });
  }

  it("networkLifecycle and securityGroupLifecycle take the lifecycle factory's rows, whose labels machines/lifecycle.ts gives", () => {
    expect(TENANCY.rules.networkLifecycle).to.equal(LIFECYCLE_RULES);
    expect(TENANCY.rules.securityGroupLifecycle).to.equal(LIFECYCLE_RULES);
    expect(wrongRows(LIFECYCLE_RULES, 'machines/lifecycle.ts')).to.deep.equal([]);
  });

  it('the source reading itself finds a wrong label (so its silence above means something)', () => {
    const wrong = IDENTITY_LIFECYCLE_RULES.map((row) => (row.outcome === 'projectRequested' ? { ...row, rule: { ...row.rule, id: 'I2' } } : row));
    expect(wrongRows(wrong, 'machines/identity-lifecycle.ts')).to.deep.equal(['projectRequested: table I2, source I1/I4']);
  });
});
