/**
 * `regent region register` as an operator runs it: the real `node bin/regent.js` in a child process,
 * against an OpenStack simulator served over HTTP by this process, with its clouds.yaml in a temporary
 * file (`--clouds-file`) and a temporary embedded resource store. Exit codes, the lines printed, what
 * --dry-run leaves behind (no mutating call, no store file), and that no secret is ever printed.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { regionResourceName } from '../../src/cli/commands/region.js';
import { runRegent, type RegentRun } from './support/run-regent.js';

type Run = RegentRun;

describe('regent region register (the command, against a simulator)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let cloudsFile: string;
  let db: string;
  let env: NodeJS.ProcessEnv;

  const regent = (args: string[]): Promise<Run> => runRegent(args, env);
  const register = (...extra: string[]) => regent(['region', 'register', '--cloud', 'sim-admin', '--clouds-file', cloudsFile, '--resources', `embedded:${db}`, ...extra]);
  const mutatingCalls = () => sim.calls().filter((c) => !['GET', 'HEAD'].includes(c.method) && c.path !== '/identity/v3/auth/tokens');
  /** Everything secret this cloud knows: the seed users' passwords, the service user's, every credential secret. */
  const secrets = (): string[] => {
    const ks = sim.control.sim.keystone;
    return [...[...ks.users.values()].map((u) => u.password), ...[...ks.appCreds.values()].map((c) => c.secret)].filter((s) => s.length >= 6);
  };
  const expectNoSecret = (run: Run) => {
    for (const secret of secrets()) {
      expect(run.out, 'stdout').to.not.include(secret);
      expect(run.err, 'stderr').to.not.include(secret);
    }
  };

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    dir = mkdtempSync(join(tmpdir(), 'regent-region-cli-'));
    mkdirSync(join(dir, 'home'));
    cloudsFile = join(dir, 'clouds.yaml');
    writeFileSync(cloudsFile, sim.cloudsYaml());
    db = join(dir, 'data', 'resources.db');
    env = { ...process.env, HOME: join(dir, 'home'), REGENT_LOG_LEVEL: 'warn', KUBECONFIG: '' };
    for (const key of ['OS_CLOUD', 'OS_CLIENT_CONFIG_FILE', 'REGENT_RESOURCES', 'REGENT_STORE', 'KUBERNETES_SERVICE_HOST']) delete env[key];
  });
  after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the default Region name comes from the OpenStack region: RegionOne → region-one', () => {
    expect(regionResourceName('RegionOne')).to.equal('region-one');
    expect(regionResourceName('us_east.1')).to.equal('us-east-1');
  });

  it('--dry-run prints one "would create" line per step and a dry-run line, exit 0; no mutating call, no store file', async () => {
    sim.control.sim.calls.clear();
    const run = await register('--dry-run');
    expect({ code: run.code, err: run.err }).to.deep.equal({ code: 0, err: '' });
    const lines = run.out.trim().split('\n');
    expect(lines.slice(0, -1).map((l) => l.replace(/ \(id [0-9a-f]+\)$/, ' (id …)'))).to.deep.equal([
      'domain regent-region-one: would create',
      'role manager: existing (id …)',
      'role member: existing (id …)',
      'role load-balancer_member: existing (id …)',
      'project regent-region-one-service: would create',
      'user regent-region-one: would create',
      'role assignment admin on project regent-region-one-service for user regent-region-one: would create',
      'application credential regent-region-one-1: would create',
      'Secret default/region-one-credentials: would create',
      'Region default/region-one: would create',
    ]);
    expect(lines.at(-1)).to.equal(`dry run, nothing was changed: Region default/region-one would be registered (Keystone ${sim.authUrl}, region RegionOne, managed domain regent-region-one)`);
    expect(mutatingCalls()).to.deep.equal([]);
    expect(existsSync(db)).to.equal(false);
    expect(existsSync(join(dir, 'data'))).to.equal(false);
    expectNoSecret(run);
  });

  it('a run creates everything, one line per step with its Keystone id, and names the Region; exit 0, no secret printed', async () => {
    const run = await register();
    expect({ code: run.code, err: run.err }).to.deep.equal({ code: 0, err: '' });
    const lines = run.out.trim().split('\n');
    expect(lines[0]).to.match(/^domain regent-region-one: created \(id [0-9a-f]{32}\)$/);
    expect(lines).to.include('Secret default/region-one-credentials: created');
    expect(lines).to.include('Region default/region-one: created');
    expect(lines.filter((l) => / (created|existing)( \(|$)/.test(l))).to.have.length(lines.length - 1);
    const domainId = lines[0]!.replace(/^.*\(id ([0-9a-f]+)\)$/, '$1');
    expect(lines.at(-1)).to.equal(`Region default/region-one registered (Keystone ${sim.authUrl}, region RegionOne, managed domain regent-region-one (${domainId}))`);
    expectNoSecret(run);
    const source = openEmbeddedSource({ path: db });
    try {
      const secret = await source.secrets.get('default', 'region-one-credentials');
      expect(run.out).to.not.include(secret!.data.application_credential_secret);
      expect(run.out).to.include(secret!.data.application_credential_id);
      expect((await source.get('Region', 'default', 'region-one'))?.spec).to.deep.include({ provider: 'openstack' });
    } finally {
      await source.close();
    }
  });

  it('a second run prints every step existing and "nothing changed"; no mutating call', async () => {
    sim.control.sim.calls.clear();
    const run = await register();
    expect(run.code).to.equal(0);
    const lines = run.out.trim().split('\n');
    expect(lines.slice(0, -1).every((l) => /: existing( \(|$)/.test(l)), run.out).to.equal(true);
    expect(lines.at(-1)).to.match(/registered \(.*\): nothing changed$/);
    expect(mutatingCalls()).to.deep.equal([]);
    expectNoSecret(run);
  });

  it('--roles overrides the managed roles: a role the cloud lacks is created, the Region names them as managedRoles; a later run without --roles keeps them', async () => {
    const run = await register('--roles', 'member, creator');
    expect({ code: run.code, err: run.err }).to.deep.equal({ code: 0, err: '' });
    const lines = run.out.trim().split('\n');
    const roleLines = (text: string) => text.trim().split('\n').filter((l) => /^role (?!assignment)/.test(l)).map((l) => l.replace(/ \(id [0-9a-f]+\)$/, ''));
    expect(roleLines(run.out)).to.deep.equal(['role member: existing', 'role creator: created']);
    expect(lines).to.include('Region default/region-one: updated');
    const read = async () => {
      const source = openEmbeddedSource({ path: db });
      try {
        return ((await source.get('Region', 'default', 'region-one'))?.spec as { openstack: { managedRoles?: string[] } }).openstack.managedRoles;
      } finally {
        await source.close();
      }
    };
    expect(await read()).to.deep.equal(['member', 'creator']);
    const again = await register();
    expect(roleLines(again.out)).to.deep.equal(['role member: existing', 'role creator: existing']);
    expect(again.out).to.match(/: nothing changed\n$/);
    expect(await read()).to.deep.equal(['member', 'creator']);
  });

  it('usage errors exit 2 with one line: a bad flag, no --cloud, an unknown cloud, an unreadable clouds file, a Region name Keystone cannot hold', async () => {
    const cases: Array<[string[], string]> = [
      [['region', 'register', '--cloud', 'sim-admin', '--bogus'], "regent: unknown option '--bogus' (run regent region register --help for usage)\n"],
      [['region', 'register'], "regent: required option '--cloud <name>' not specified (run regent region register --help for usage)\n"],
      [['region', 'register', '--cloud', 'nope', '--clouds-file', cloudsFile], `regent: ${cloudsFile}: cloud 'nope' not found (have: sim-admin, sim-demo, sim-other)\n`],
      [['region', 'register', '--cloud', 'sim-admin', '--clouds-file', join(dir, 'missing.yaml')], `regent: --clouds-file ${join(dir, 'missing.yaml')}: cannot read it\n`],
      [['region', 'register', '--cloud', 'sim-admin', '--clouds-file', cloudsFile, '--name', 'Bad_Name', '--resources', `embedded:${db}`], ''],
    ];
    for (const [args, err] of cases) {
      const run = await regent(args);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.out, args.join(' ')).to.equal('');
      if (err !== '') expect(run.err, args.join(' ')).to.equal(err);
      else expect(run.err).to.match(/^regent: Region name "Bad_Name": expected a lowercase DNS name [^\n]*\n$/);
    }
  });

  it('a cloud without admin powers exits 1 with one line naming the policy it lacked; its password is not printed, nothing is created', async () => {
    sim.control.sim.calls.clear();
    const run = await regent(['region', 'register', '--cloud', 'sim-demo', '--clouds-file', cloudsFile, '--name', 'demo-region', '--resources', `embedded:${db}`]);
    expect(run).to.deep.equal({
      code: 1,
      out: '',
      err: 'regent: the credentials of cloud sim-demo may not list domains (HTTP 403, identity:list_domains): regent region register needs a cloud with admin powers (the admin role)\n',
    });
    expect(mutatingCalls()).to.deep.equal([]);
    expectNoSecret(run);
  });

  it('a wrong password exits 1 with one line naming Keystone and the cloud, never the password', async () => {
    const badFile = join(dir, 'bad-clouds.yaml');
    writeFileSync(badFile, sim.cloudsYaml().replace(sim.credentials.admin.password, 'wrong-password-123'));
    const run = await regent(['region', 'register', '--cloud', 'sim-admin', '--clouds-file', badFile, '--resources', `embedded:${db}`, '--dry-run']);
    expect(run).to.deep.equal({ code: 1, out: '', err: `regent: Keystone ${sim.authUrl} refused the credentials of cloud sim-admin (HTTP 401)\n` });
    expect(run.err).to.not.include('wrong-password-123');
  });
});
