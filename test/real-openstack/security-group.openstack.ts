/**
 * The SecurityGroup provider's handlers against real Neutron, as the tenant (the Identity's session): create
 * `security-group-<uid>` with its rules made exactly the spec's (Neutron's default egress rules removed unless
 * listed), idempotent re-create (adopted, rules unchanged), observe by exact name, delete; a delete while a port
 * uses the group is refused (409) and reported as deleteRejected.
 */
import { expect } from 'chai';
import type { EffectContext } from '../../src/engine/engine.js';
import { createSecurityGroupHandler, deleteSecurityGroupHandler, observeSecurityGroup, securityGroupName } from '../../src/provider/security-groups.js';
import type { SecurityGroupRule } from '../../src/resources/security-group.js';
import { realRun, type RealRun } from './support/run.js';

describe('security group provider against real Neutron', function () {
  let run: RealRun;
  before(async () => {
    run = await realRun();
  });

  it('creates the group with exactly the spec rules, adopts it on a repeat, refuses a delete while a port uses it, deletes it', async () => {
    const neutron = run.tenant.neutron;
    const uid = `${run.prefix}-sg-uid`;
    const context = { logger: run.logger } as unknown as EffectContext;
    const rules: SecurityGroupRule[] = [
      { direction: 'ingress', protocol: 'tcp', portRangeMin: 22, portRangeMax: 22, remoteIPPrefix: '10.0.0.0/8' },
      { direction: 'ingress', protocol: 'icmp' },
      { direction: 'egress', protocol: 'any' },
    ];
    expect(await observeSecurityGroup(neutron, uid)).to.deep.equal({ kind: 'absent' });
    const created = (await createSecurityGroupHandler(run.tenant)({ type: 'neutron.createSecurityGroup', desired: { uid, description: 'regent suite', rules } }, context)) as { type: string; id: string };
    expect(created.type).to.equal('created');
    run.cleanup.add(`security group ${securityGroupName(uid)}`, () => neutron.deleteSecurityGroup(created.id).catch(() => undefined));
    expect(await observeSecurityGroup(neutron, uid)).to.deep.equal({ kind: 'present', id: created.id });
    const shape = async () => (await neutron.listSecurityGroupRules({ security_group_id: created.id })).map((r) => [r.direction, r.ethertype, r.protocol ?? null, r.port_range_min ?? null, r.port_range_max ?? null, r.remote_ip_prefix ?? null]);
    const expected = [['ingress', 'IPv4', 'tcp', 22, 22, '10.0.0.0/8'], ['ingress', 'IPv4', 'icmp', null, null, null], ['egress', 'IPv4', null, null, null, null]];
    // the IPv6 default egress rule is gone; the IPv4 one is the listed egress rule, kept
    expect(await shape()).to.have.deep.members(expected);
    expect(await createSecurityGroupHandler(run.tenant)({ type: 'neutron.createSecurityGroup', desired: { uid, rules } }, context)).to.deep.equal({ type: 'created', id: created.id });
    expect(await shape()).to.have.deep.members(expected);
    // in use by a port: Neutron refuses the delete (409), the handler reports a refusal the lifecycle retries
    const fx = await run.fixtures();
    const port = await neutron.createPort({ network_id: fx.networkId, name: run.name('sg-port'), security_groups: [created.id] });
    run.cleanup.add(`port ${port.id}`, () => neutron.deletePort(port.id).catch(() => undefined));
    const refused = (await deleteSecurityGroupHandler(run.tenant)({ type: 'neutron.deleteSecurityGroup', id: created.id }, context)) as { type: string; status?: number };
    expect(refused.type).to.equal('deleteRejected');
    expect(refused.status).to.equal(409);
    await neutron.deletePort(port.id);
    expect(await deleteSecurityGroupHandler(run.tenant)({ type: 'neutron.deleteSecurityGroup', id: created.id }, context)).to.deep.equal({ type: 'deleteAccepted' });
    expect(await observeSecurityGroup(neutron, uid)).to.deep.equal({ kind: 'absent' });
    expect(await deleteSecurityGroupHandler(run.tenant)({ type: 'neutron.deleteSecurityGroup', id: created.id }, context)).to.deep.equal({ type: 'deleteAccepted' });
  });
});
