/**
 * The local role workloads (src/nova/workloads/local.ts, supervisor.ts): what a Deployment gives a role, given by
 * supervised processes on this host — restart on crash with exponential backoff, a clean stop that leaves no process
 * of the role's group (checked in the process listing), secrets in the process's environment and nowhere on disk,
 * ports kept across restarts, an earlier Regent's processes stopped, the installed-release stamp restarting the
 * role. Real child processes: the stand-in role program of ./support/workloads.ts (the real Nova runs in
 * test/real-openstack/nova-roles.openstack.ts). The Nova launcher's command line is checked as data here.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalWorkloads, type LocalWorkloadsOptions } from '../../src/nova/workloads/local.js';
import { launcherCode, localConf, novaLauncher } from '../../src/nova/workloads/nova-launcher.js';
import { WorkloadError, type NovaRole, type RoleTemplate } from '../../src/nova/workloads/port.js';
import { withTemplateHash } from '../../src/nova/workloads/template-hash.js';
import { roleTemplate } from '../../src/controllers/nova/steps/roles.js';
import { lanePass, standInLauncher } from './support/workloads.js';

const NS = 'openstack';
const NOVA = { name: 'nova', uid: 'uid-nova' };
const IMAGE = 'ghcr.io/c5c3/nova:2025.1';
const SECRETS: Record<string, string> = {
  'nova-api-db-connection/connection': 'mysql+pymysql://nova_api:pw-api-7f3a@127.0.0.1/nova_api',
  'nova-db-connection/connection': 'mysql+pymysql://nova:pw-cell-91c2@127.0.0.1/nova',
  'nova-transport-url/url': 'rabbit://nova:pw-bus-5d0e@127.0.0.1:5672/nova',
  'nova-service-user/password': 'pw-service-user-c4b8',
  'nova-metadata/shared-secret': 'pw-metadata-2a6f',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const templateOf = (role: NovaRole, mode?: string): RoleTemplate => {
  const built = roleTemplate(lanePass(), role);
  if ('waiting' in built) throw new Error(built.waiting);
  return mode === undefined ? built.template : withTemplateHash({ ...built.template, env: [...built.template.env, { name: 'FAKE_MODE', value: mode }] });
};

/** Every process whose process group is `pgid`, from `ps`. */
const groupMembers = (pgid: number): number[] =>
  execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([pid, group]) => group === pgid && pid !== undefined && !Number.isNaN(pid))
    .map(([pid]) => pid!);

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

describe('local role workloads: supervised processes', function () {
  this.timeout(30_000);
  let dir: string;
  const opened: LocalWorkloads[] = [];
  const open = (options: Partial<LocalWorkloadsOptions> = {}): LocalWorkloads => {
    const port = new LocalWorkloads({ dir, readSecret: async (_ns, name, key) => SECRETS[`${name}/${key}`], launcher: standInLauncher, readyAfterMs: 300, probeIntervalMs: 100, graceMs: 1_500, ...options });
    opened.push(port);
    return port;
  };
  const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
    for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) if (await check()) return;
    throw new Error(`timed out waiting for ${what}`);
  };
  const starts = (role: NovaRole): Array<{ pid: number; at: number }> => {
    try {
      return readFileSync(join(dir, NS, NOVA.name, role, 'starts'), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => ({ pid: Number(l.split(' ')[0]), at: Number(l.split(' ')[1]) }));
    } catch {
      return [];
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-workloads-local-'));
  });
  afterEach(async () => {
    for (const port of opened.splice(0)) await port.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a crashed process is restarted with exponential backoff (each wait at least double the one before), and the detail says so', async () => {
    const port = open({ backoff: { initialMs: 150, maxMs: 5_000, resetAfterMs: 60_000 } });
    await port.ensure(NS, NOVA, 'conductor', templateOf('conductor', 'crash'));
    await until('four starts', () => starts('conductor').length >= 4);
    const at = starts('conductor').map((s) => s.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps[0]).to.be.at.least(150);
    expect(gaps[1]).to.be.at.least(2 * 150);
    expect(gaps[2]).to.be.at.least(4 * 150);
    await until('a pass that finds it waiting out the backoff', async () => (await port.rollout(NS, NOVA.name, 'conductor', IMAGE)).detail.startsWith('not running'));
    const rollout = await port.rollout(NS, NOVA.name, 'conductor', IMAGE);
    expect(rollout.rolledOut).to.equal(false);
    expect(rollout.detail).to.match(/^not running \(exit code 3\); restart \d+ follows after a [\d.]+ s backoff; see .*conductor\.log$/);
    expect(readFileSync(port.logPath(NS, NOVA.name, 'conductor'), 'utf8')).to.match(/exited \(exit code 3\) after \d+ ms; restarting in 600 ms \(crash 3 in a row\)/);
  });

  it('close stops every role with SIGTERM, SIGKILLs what ignores it after the grace, and leaves no process of their groups', async () => {
    const port = open({ graceMs: 800 });
    await port.ensure(NS, NOVA, 'api', templateOf('api'));
    await port.ensure(NS, NOVA, 'conductor', templateOf('conductor', 'ignore-term'));
    await port.ensure(NS, NOVA, 'scheduler', templateOf('scheduler', 'fork'));
    await until('three processes and the forked worker', () => (port.pid(NS, NOVA.name, 'scheduler') ?? 0) > 0 && groupMembers(port.pid(NS, NOVA.name, 'scheduler')!).length === 2 && starts('api').length === 1 && starts('conductor').length === 1);
    const groups = (['api', 'conductor', 'scheduler'] as const).map((role) => port.pid(NS, NOVA.name, role)!);
    expect(groups.map(groupMembers).flat().length).to.equal(4);
    const began = Date.now();
    await port.close();
    expect(Date.now() - began, 'the conductor ignored SIGTERM: SIGKILL came after the grace').to.be.at.least(800);
    expect(groups.flatMap(groupMembers), 'no process of any role group is left (ps)').to.deep.equal([]);
    expect(readdirSync(join(dir, NS, NOVA.name, 'api'))).to.not.include('process.json');
    expect(readFileSync(port.logPath(NS, NOVA.name, 'conductor'), 'utf8')).to.contain('did not stop within 800 ms of SIGTERM: SIGKILL');
  });

  it('secrets reach the process as environment only: in /proc/<pid>/environ, in no file under the data dir (config, logs, records)', async () => {
    const port = open();
    await port.ensure(NS, NOVA, 'metadata', templateOf('metadata'));
    await until('the metadata API answers', async () => (await port.rollout(NS, NOVA.name, 'metadata', IMAGE)).rolledOut);
    const environ = readFileSync(`/proc/${port.pid(NS, NOVA.name, 'metadata')}/environ`, 'utf8').split('\0');
    expect(environ).to.include(`OS_NEUTRON__METADATA_PROXY_SHARED_SECRET=${SECRETS['nova-metadata/shared-secret']}`);
    expect(environ).to.include(`OS_API_DATABASE__CONNECTION=${SECRETS['nova-api-db-connection/connection']}`);
    expect(environ.some((e) => e.startsWith('HOME=') && e !== `HOME=${join(dir, NS, NOVA.name, 'metadata')}`), "Regent's own environment is not inherited").to.equal(false);
    const onDisk = filesUnder(dir).map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const value of Object.values(SECRETS)) expect(onDisk).to.not.contain(value.split(':').at(-1)!.split('@')[0]!);
    for (const file of filesUnder(join(dir, NS, NOVA.name, 'metadata', 'config'))) expect(statSync(file).mode & 0o077, file).to.equal(0);
  });

  it('a missing Secret refuses the ensure (names only) and leaves the running process alone', async () => {
    const port = open();
    await port.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
    await until('the conductor runs', () => port.pid(NS, NOVA.name, 'conductor') !== undefined);
    const pid = port.pid(NS, NOVA.name, 'conductor');
    const broken = withTemplateHash({ ...templateOf('conductor'), env: [{ name: 'OS_DATABASE__CONNECTION', secretKeyRef: { name: 'nova-db-connection', key: 'gone' } }] });
    const error = await port.ensure(NS, NOVA, 'conductor', broken).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(WorkloadError);
    expect((error as Error).message).to.equal('openstack/nova/conductor: env OS_DATABASE__CONNECTION names key "gone" of Secret openstack/nova-db-connection, which does not exist (the Secret or the key is missing)');
    expect(port.pid(NS, NOVA.name, 'conductor')).to.equal(pid);
  });

  it('the loopback port is chosen once and kept: the same endpoint after a remove and for the next Regent on the data dir', async () => {
    const first = open();
    await first.ensure(NS, NOVA, 'api', templateOf('api'));
    const endpoint = await first.endpoint(NS, NOVA.name);
    expect(endpoint).to.match(/^http:\/\/127\.0\.0\.1:2[1-8]\d{3}$/);
    await first.remove(NS, NOVA.name, 'api');
    await first.ensure(NS, NOVA, 'api', templateOf('api'));
    await first.close();
    const next = open();
    expect(await next.endpoint(NS, NOVA.name)).to.equal(endpoint);
    await next.ensure(NS, NOVA, 'api', templateOf('api'));
    await until('the API answers on the kept port', async () => (await next.rollout(NS, NOVA.name, 'api', IMAGE)).rolledOut);
    expect((await fetch(endpoint!)).status).to.equal(300);
    await next.ensure(NS, NOVA, 'metadata', templateOf('metadata'));
    expect(JSON.parse(readFileSync(join(dir, NS, NOVA.name, 'ports.json'), 'utf8')).metadata, 'another role gets another port').to.not.equal(Number(endpoint!.split(':').at(-1)));
  });

  it("a process an earlier Regent left running (process.json: same pid and start time) is stopped by the next one before it does anything", async () => {
    // the earlier Regent: its supervisor would restart the role only after a minute, as if it were gone
    const earlier = open({ backoff: { initialMs: 60_000, maxMs: 60_000, resetAfterMs: 60_000 } });
    await earlier.ensure(NS, NOVA, 'scheduler', templateOf('scheduler'));
    await until('the scheduler runs', () => earlier.pid(NS, NOVA.name, 'scheduler') !== undefined);
    const leftover = earlier.pid(NS, NOVA.name, 'scheduler')!;
    const next = open();
    expect(await next.rollout(NS, NOVA.name, 'scheduler', IMAGE)).to.include({ present: false });
    expect(groupMembers(leftover)).to.deep.equal([]);
  });

  it('leader-scoped (the control plane): a standby starting on the data dir stops nothing; resign stops every role; lead() stops what another replica left, then this one runs them alone', async () => {
    const slow = { backoff: { initialMs: 60_000, maxMs: 60_000, resetAfterMs: 60_000 } };
    const leader = open({ leaderScoped: true, ...slow });
    await leader.lead();
    await leader.ensure(NS, NOVA, 'api', templateOf('api'));
    await until('the api runs', () => leader.pid(NS, NOVA.name, 'api') !== undefined);
    const first = leader.pid(NS, NOVA.name, 'api')!;
    const standby = open({ leaderScoped: true, ...slow });
    await sleep(300);
    expect(groupMembers(first), "a standby's start leaves the leader's role alone").to.not.deep.equal([]);
    // the leader paused past its lease: the standby leads, stops the recorded process, runs its own on the kept port
    await standby.lead();
    expect(groupMembers(first), "the new leader stopped the old leader's role").to.deep.equal([]);
    await standby.ensure(NS, NOVA, 'api', templateOf('api'));
    await until('the api runs under the new leader', async () => (await standby.rollout(NS, NOVA.name, 'api', IMAGE)).rolledOut);
    const second = standby.pid(NS, NOVA.name, 'api')!;
    expect(second).to.not.equal(first);
    // the old leader notices and resigns: it stops what it runs (nothing of the new leader's)
    await leader.resign();
    expect(groupMembers(second), "the old leader's resign leaves the new leader's role").to.not.deep.equal([]);
    await standby.resign();
    expect(groupMembers(second), 'resign stops every role').to.deep.equal([]);
  });

  it("an observer on the same data dir (`regent plan`'s process: observeRecorded) answers what the serving Regent runs, in its words, from its records; it starts, stops and sweeps nothing", async () => {
    const serving = open({ leaderScoped: true });
    await serving.lead();
    await serving.ensure(NS, NOVA, 'api', templateOf('api'));
    await serving.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
    const observer = open({ observeRecorded: true });
    const rolledOut = async (port: LocalWorkloads, role: NovaRole) => (await port.rollout(NS, NOVA.name, role, IMAGE)).rolledOut;
    await until('both roles rolled out for the serving Regent', async () => (await rolledOut(serving, 'api')) && (await rolledOut(serving, 'conductor')));
    for (const role of ['api', 'conductor', 'scheduler'] as const) {
      expect(await observer.rollout(NS, NOVA.name, role, IMAGE), `${role}: the serving Regent's answer`).to.deep.equal(await serving.rollout(NS, NOVA.name, role, IMAGE));
    }
    expect((await observer.rollout(NS, NOVA.name, 'api', 'ghcr.io/c5c3/nova:2025.2')).detail).to.equal(`runs the template of ${IMAGE}, not ghcr.io/c5c3/nova:2025.2`);
    expect(await observer.liveConfig(NS, NOVA.name)).to.equal(await serving.liveConfig(NS, NOVA.name));
    expect(await observer.liveConfig(NS, NOVA.name)).to.be.a('string');
    // it runs nothing: its writes refuse, and its close stops nothing of the serving Regent's
    const pids = (['api', 'conductor'] as const).map((role) => serving.pid(NS, NOVA.name, role));
    for (const write of [() => observer.ensure(NS, NOVA, 'api', templateOf('api')), () => observer.remove(NS, NOVA.name, 'api'), () => observer.stampInstalledRelease(NS, NOVA.name, 'api', '2025.1')]) {
      const error = await write().then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(WorkloadError);
    }
    await observer.close();
    expect((['api', 'conductor'] as const).map((role) => serving.pid(NS, NOVA.name, role))).to.deep.equal(pids);
    expect(await rolledOut(serving, 'api')).to.equal(true);
    // the serving Regent stops a role: the observer sees it gone (its record is removed; a record whose pid no longer runs is nothing either)
    await serving.remove(NS, NOVA.name, 'conductor');
    expect(await open({ observeRecorded: true }).rollout(NS, NOVA.name, 'conductor', IMAGE)).to.deep.equal({ role: 'conductor', deployment: 'nova-conductor', present: false, rolledOut: false, detail: 'no local process for nova-conductor' });
  });

  it('the installed-release stamp restarts the role on the same template (a roll); the same release again is unchanged; no role is absent', async () => {
    const port = open();
    expect(await port.stampInstalledRelease(NS, NOVA.name, 'conductor', '2025.2')).to.equal('absent');
    await port.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
    await until('the conductor runs', () => port.pid(NS, NOVA.name, 'conductor') !== undefined);
    const pid = port.pid(NS, NOVA.name, 'conductor');
    expect(await port.stampInstalledRelease(NS, NOVA.name, 'conductor', '2025.2')).to.equal('stamped');
    expect(port.pid(NS, NOVA.name, 'conductor')).to.not.equal(pid);
    expect(await port.stampInstalledRelease(NS, NOVA.name, 'conductor', '2025.2')).to.equal('unchanged');
    const after = port.pid(NS, NOVA.name, 'conductor');
    await port.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
    expect(port.pid(NS, NOVA.name, 'conductor'), 'the stamp survives an unchanged ensure').to.equal(after);
  });

  it("the role's stdout and stderr go to <dir>/<namespace>/<nova>/<role>.log with a [regent] line for each start", async () => {
    const port = open();
    await port.ensure(NS, NOVA, 'api', templateOf('api'));
    await until('the API answers', async () => (await port.rollout(NS, NOVA.name, 'api', IMAGE)).rolledOut);
    const log = readFileSync(join(dir, NS, NOVA.name, 'api.log'), 'utf8');
    expect(log).to.match(/\[regent\] \S+ starting openstack\/nova\/api: /);
    expect(log).to.contain(`stand-in role up, pid ${port.pid(NS, NOVA.name, 'api')}`);
  });

  describe('the Nova launcher (the installed python3-nova)', () => {
    const input = { configDir: '/data/nova/openstack/nova/api/config', files: ['nova.conf', 'nova-api.conf'], overlay: 'nova-api.conf', host: '127.0.0.1', port: 21234 };

    it('runs /usr/bin/python3 -c <launcher> with nova.conf, the overlay, then regent-local.conf', () => {
      const launch = novaLauncher({ novncWebExists: true })({ role: 'api', ...input });
      expect(launch.command).to.equal('/usr/bin/python3');
      expect(launch.args).to.deep.equal(['-c', launcherCode('api'), '--config-file', `${input.configDir}/nova.conf`, '--config-file', `${input.configDir}/nova-api.conf`, '--config-file', `${input.configDir}/regent-local.conf`]);
      expect(launcherCode('api')).to.contain('from nova.cmd.api_os_compute import main').and.contain('sys.argv[0] = "nova-api-os-compute"').and.contain('prctl(1, 15)');
      expect(launcherCode('metadata')).to.contain('from nova.cmd.api_metadata import main');
      expect(launcherCode('novncproxy')).to.contain('from nova.cmd.novncproxy import main');
    });

    it('regent-local.conf says the loopback port of each serving role, and nothing for the conductor', () => {
      expect(localConf({ role: 'api', ...input }, undefined)).to.contain('[DEFAULT]\nosapi_compute_listen = 127.0.0.1\nosapi_compute_listen_port = 21234\n');
      expect(localConf({ role: 'metadata', ...input }, undefined)).to.contain('metadata_listen_port = 21234');
      expect(localConf({ role: 'novncproxy', ...input }, '/x/novnc-web')).to.contain('[vnc]\nnovncproxy_host = 127.0.0.1\nnovncproxy_port = 21234\n').and.contain('web = /x/novnc-web');
      expect(localConf({ role: 'conductor', ...input, messagingCAFile: '/x/ca.crt' }, undefined)).to.match(/\[oslo_messaging_rabbit\]\nssl_ca_file = \/x\/ca\.crt\n$/);
    });

    it('without /usr/share/novnc the console proxy serves a placeholder page from its own directory', () => {
      const launch = novaLauncher({ novncWebExists: false })({ role: 'novncproxy', ...input });
      expect(Object.keys(launch.files).sort()).to.deep.equal(['novnc-web/index.html', 'regent-local.conf']);
      expect(launch.files['regent-local.conf']).to.contain(`web = ${input.configDir}/novnc-web`);
    });
  });
});
