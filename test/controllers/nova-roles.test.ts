/**
 * The five workload steps (src/controllers/nova/steps/roles.ts; nova-operator.md "Pipeline" rows Conductor …
 * Deployment, "Conditions", "Requeue semantics", "Rotation and deletion"): each step's condition and reason per
 * rollout state, the upgrade short-circuit against the outside-an-upgrade continue, the waits that ensure nothing
 * (no config, a carried credential without a digest), the disabled console proxy, the API endpoint, and what
 * roleTemplate puts in a role's template. The port is a recording fake that fails loudly on a call it was not given.
 */
import { expect } from 'chai';
import { runLane } from '../../src/controllers/nova/lane.js';
import { ROLE_STEPS, carriedCredentials, consoleProxyStep, roleTemplate } from '../../src/controllers/nova/steps/roles.js';
import { DIGEST_ANNOTATIONS } from '../../src/controllers/nova/pass.js';
import { WorkloadError, type NovaRole, type RoleRollout, type RoleTemplate, type RoleWorkloads } from '../../src/nova/workloads/port.js';
import { allDigests, lanePass, novaSpec } from '../nova/support/workloads.js';

interface Recorded {
  calls: string[];
  templates: Partial<Record<NovaRole, RoleTemplate>>;
}

/** A port whose roles are rolled out as `rolledOut` says; ensure may throw for the roles in `failing`. */
const fakePort = (rolledOut: (role: NovaRole) => boolean, options: { failing?: NovaRole[] } = {}): RoleWorkloads & Recorded => {
  const recorded: Recorded = { calls: [], templates: {} };
  const answer = (role: NovaRole): RoleRollout => ({ role, deployment: `nova-${role}`, present: true, rolledOut: rolledOut(role), detail: rolledOut(role) ? `${role} rolled out` : `${role}: 0 of 1 replicas ready` });
  return Object.assign(recorded, {
    rollout: async () => expect.fail('the workload steps never call rollout'),
    stampInstalledRelease: async () => expect.fail('the workload steps never stamp'),
    ensure: async (_ns: string, nova: { name: string; uid: string }, role: NovaRole, template: RoleTemplate) => {
      recorded.calls.push(`ensure ${role}`);
      expect(nova).to.deep.equal({ name: 'nova', uid: 'uid-nova' });
      recorded.templates[role] = template;
      if (options.failing?.includes(role)) throw new WorkloadError(`cannot create Deployment nova-${role} in openstack: HTTP 403: forbidden`, 403);
      return answer(role);
    },
    remove: async (_ns: string, _nova: string, role: NovaRole) => {
      recorded.calls.push(`remove ${role}`);
      return 'removed' as const;
    },
    endpoint: async () => {
      recorded.calls.push('endpoint');
      return 'http://nova-api.openstack.svc:8774';
    },
  });
};

const STEPS: Array<{ step: string; role: NovaRole; condition: string; ready: string; waiting: string }> = [
  { step: 'Conductor', role: 'conductor', condition: 'ConductorReady', ready: 'ConductorReady', waiting: 'WaitingForConductor' },
  { step: 'Scheduler', role: 'scheduler', condition: 'SchedulerReady', ready: 'SchedulerReady', waiting: 'WaitingForScheduler' },
  { step: 'Metadata', role: 'metadata', condition: 'MetadataReady', ready: 'MetadataReady', waiting: 'WaitingForMetadata' },
  { step: 'ConsoleProxy', role: 'novncproxy', condition: 'ConsoleProxyReady', ready: 'ConsoleProxyReady', waiting: 'WaitingForConsoleProxy' },
  { step: 'Deployment', role: 'api', condition: 'DeploymentReady', ready: 'DeploymentReady', waiting: 'WaitingForDeployment' },
];
const stepNamed = (name: string) => ROLE_STEPS.find((s) => s.name === name)!;

describe('Nova workload steps (issue 26)', () => {
  it('the steps run in the order an upgrade rolls the roles, each owning its one condition', () => {
    expect(ROLE_STEPS.map((s) => `${s.name}:${s.conditions.join()}`)).to.deep.equal(STEPS.map((s) => `${s.step}:${s.condition}`));
  });

  for (const { step, role, condition, ready, waiting } of STEPS) {
    describe(step, () => {
      it(`rolled out: ${condition}=True ${ready}, and the lane continues`, async () => {
        const port = fakePort(() => true);
        const report = await stepNamed(step).run(lanePass({ workloads: port }));
        expect(report.conditions).to.deep.equal([{ type: condition, status: 'True', reason: ready, message: `${role} rolled out` }]);
        expect(report.outcome).to.deep.equal({ kind: 'continue' });
        expect(port.calls).to.deep.equal([`ensure ${role}`, ...(role === 'api' ? ['endpoint'] : [])]);
      });

      it(`still starting outside an upgrade: ${condition}=False ${waiting}, and the lane still continues (no short-circuit)`, async () => {
        const report = await stepNamed(step).run(lanePass({ workloads: fakePort(() => false) }));
        expect(report.conditions).to.deep.equal([{ type: condition, status: 'False', reason: waiting, message: `${role}: 0 of 1 replicas ready` }]);
        expect(report.outcome).to.deep.equal({ kind: 'continue' });
      });

      it(`still rolling during an upgrade: ${condition}=False ${waiting}, and the lane ends with a 10 s requeue (RequeueDeploymentPolling)`, async () => {
        const report = await stepNamed(step).run(lanePass({ workloads: fakePort(() => false), upgrading: true }));
        expect(report.conditions[0]).to.include({ status: 'False', reason: waiting });
        expect(report.outcome).to.include({ kind: 'requeue', afterMs: 10_000 });
      });

      it(`no rendered config in the pass: ${waiting}, a 30 s requeue, and nothing is ensured`, async () => {
        const port = fakePort(() => true);
        const report = await stepNamed(step).run(lanePass({ workloads: port, config: undefined }));
        expect(report.conditions[0]).to.include({ status: 'False', reason: waiting });
        expect(report.conditions[0]!.message).to.match(/^no rendered config in this pass/);
        expect(report.outcome).to.include({ kind: 'requeue', afterMs: 30_000 });
        expect(port.calls).to.deep.equal([]);
      });

      it(`a credential the role carries has no digest in the pass: ${waiting}, a 15 s requeue, and nothing is ensured (nothing rolls)`, async () => {
        const port = fakePort(() => true);
        const { [DIGEST_ANNOTATIONS.dbConnection]: _dropped, ...digests } = allDigests();
        const report = await stepNamed(step).run(lanePass({ workloads: port, digests }));
        expect(report.conditions[0]).to.include({ status: 'False', reason: waiting, message: 'no digest of nova.c5c3.io/db-connection-hash in this pass: the role is left as it runs rather than rolled without the annotation' });
        expect(report.outcome).to.include({ kind: 'requeue', afterMs: 15_000 });
        expect(port.calls).to.deep.equal([]);
      });

      it(`a port failure: ${waiting} with its message, and the lane ends as an error`, async () => {
        const report = await stepNamed(step).run(lanePass({ workloads: fakePort(() => true, { failing: [role] }) }));
        expect(report.conditions).to.deep.equal([{ type: condition, status: 'False', reason: waiting, message: `cannot create Deployment nova-${role} in openstack: HTTP 403: forbidden` }]);
        expect(report.outcome.kind).to.equal('error');
      });
    });
  }

  it('a console proxy not enabled is removed, ConsoleProxyReady=True ConsoleProxyDisabled, and nothing is ensured', async () => {
    for (const consoleProxy of [undefined, { enabled: false }]) {
      const port = fakePort(() => false);
      const report = await consoleProxyStep.run(lanePass({ workloads: port, spec: novaSpec({ consoleProxy }) }));
      expect(port.calls).to.deep.equal(['remove novncproxy']);
      expect(report.conditions[0]).to.include({ type: 'ConsoleProxyReady', status: 'True', reason: 'ConsoleProxyDisabled' });
      expect(report.outcome).to.deep.equal({ kind: 'continue' });
    }
  });

  it('the Deployment step hands the API endpoint on in values.endpoint (HealthCheck probes it), also while the API is still starting', async () => {
    const pass = lanePass({ workloads: fakePort(() => false) });
    await stepNamed('Deployment').run(pass);
    expect(pass.values.endpoint).to.equal('http://nova-api.openstack.svc:8774');
  });

  it('a port that cannot run roles is a wiring bug: the step throws, naming it', async () => {
    const readOnly = { rollout: async () => expect.fail(), stampInstalledRelease: async () => expect.fail() };
    await stepNamed('Conductor').run(lanePass({ workloads: readOnly })).then(
      () => expect.fail('expected a refusal'),
      (error: Error) => expect(error.message).to.match(/cannot run roles/),
    );
  });

  describe('the lane over the five steps', () => {
    it('outside an upgrade, every role is ensured although none is ready yet: no workload step short-circuits', async () => {
      const port = fakePort(() => false);
      const result = await runLane(ROLE_STEPS, lanePass({ workloads: port }));
      expect(result.endedAt).to.equal(null);
      expect(port.calls.filter((c) => c.startsWith('ensure'))).to.deep.equal(['ensure conductor', 'ensure scheduler', 'ensure metadata', 'ensure novncproxy', 'ensure api']);
      expect(result.conditions.map((c) => `${c.type}=${c.status}`)).to.deep.equal(['ConductorReady=False', 'SchedulerReady=False', 'MetadataReady=False', 'ConsoleProxyReady=False', 'DeploymentReady=False']);
    });

    it('during an upgrade the first role not rolled out ends the lane: the roles after it are not ensured yet', async () => {
      const port = fakePort((role) => role === 'conductor');
      const result = await runLane(ROLE_STEPS, lanePass({ workloads: port, upgrading: true }));
      expect(result.endedAt).to.equal('Scheduler');
      expect(port.calls).to.deep.equal(['ensure conductor', 'ensure scheduler']);
      expect(result.outcome).to.include({ kind: 'requeue', afterMs: 10_000 });
    });

    it('during an upgrade with every role rolled out, the lane runs through', async () => {
      const result = await runLane(ROLE_STEPS, lanePass({ workloads: fakePort(() => true), upgrading: true }));
      expect(result.endedAt).to.equal(null);
      expect(result.conditions.every((c) => c.status === 'True')).to.equal(true);
    });
  });

  describe('roleTemplate', () => {
    const template = (role: NovaRole, options: Parameters<typeof lanePass>[0] = {}): RoleTemplate => {
      const built = roleTemplate(lanePass(options), role);
      if ('waiting' in built) throw new Error(built.waiting);
      return built.template;
    };
    const refs = (t: RoleTemplate) => t.env.map((e) => ('secretKeyRef' in e ? `${e.name}=${e.secretKeyRef.name}/${e.secretKeyRef.key}` : `${e.name} literal`));

    it('each role carries the env and the digest annotation of exactly the credentials it reads', () => {
      const annotations = (role: NovaRole) => Object.keys(template(role).annotations).sort();
      const all = Object.values(DIGEST_ANNOTATIONS).filter((a) => a !== DIGEST_ANNOTATIONS.metadataSecret).sort();
      expect(annotations('conductor')).to.deep.equal(all);
      expect(annotations('scheduler')).to.deep.equal(all);
      expect(annotations('api')).to.deep.equal(all);
      expect(annotations('metadata')).to.deep.equal([...all, DIGEST_ANNOTATIONS.metadataSecret].sort());
      expect(annotations('novncproxy')).to.deep.equal([DIGEST_ANNOTATIONS.dbConnection, DIGEST_ANNOTATIONS.transportURL].sort());
      expect(refs(template('novncproxy'))).to.deep.equal(['OS_DATABASE__CONNECTION=nova-db-connection/connection', 'OS_DEFAULT__TRANSPORT_URL=nova-transport-url/url']);
      expect(refs(template('metadata'))).to.include('OS_NEUTRON__METADATA_PROXY_SHARED_SECRET=nova-metadata/shared-secret');
      expect(refs(template('api'))).to.not.include('OS_NEUTRON__METADATA_PROXY_SHARED_SECRET=nova-metadata/shared-secret');
      for (const role of ['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'] as const) expect(refs(template(role)).every((r) => !r.endsWith('literal')), `${role}: a secret only by reference`).to.equal(true);
    });

    it('without spec.metadata the metadata API carries no shared secret, and its missing digest does not hold it back', () => {
      const { [DIGEST_ANNOTATIONS.metadataSecret]: _none, ...digests } = allDigests();
      const spec = novaSpec({ metadata: undefined });
      expect(carriedCredentials(lanePass({ spec }), 'metadata')).to.not.include('metadataSecret');
      expect(template('metadata', { spec, digests }).annotations).to.not.have.property(DIGEST_ANNOTATIONS.metadataSecret);
    });

    it('the image, the config and the role overlay in it, the port, replicas, and the API PDB', () => {
      const api = template('api', { spec: novaSpec({ replicas: 3 }) });
      expect(api).to.deep.include({ image: 'ghcr.io/c5c3/nova:2025.1', overlay: 'nova-api.conf', port: 8774, replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } });
      expect(api.config.name).to.equal('nova-config-0123456789');
      expect(template('metadata').port).to.equal(8775);
      expect(template('novncproxy').port).to.equal(6080);
      expect(template('conductor')).to.not.have.any.keys('port', 'podDisruptionBudget');
    });

    it('the hash: no credential value is in the template; a digest changes it, a replica count does not', () => {
      const pass = lanePass();
      pass.values.apiCredentials = { username: 'nova_api', password: 'pw-never-in-a-template' };
      pass.values.serviceUserPassword = 'pw-service-never-in-a-template';
      const built = roleTemplate(pass, 'api');
      expect(JSON.stringify(built)).to.not.contain('never-in-a-template');
      const base = template('api');
      expect(template('api', { spec: novaSpec({ replicas: 5 }) }).templateHash).to.equal(base.templateHash);
      expect(template('api', { digests: { ...allDigests(), [DIGEST_ANNOTATIONS.transportURL]: '0'.repeat(64) } }).templateHash).to.not.equal(base.templateHash);
    });
  });
});
