/**
 * How the `regent` command fails, as a new user meets it (issue 10, item 16): a real process, exit
 * codes and the exact stderr line. Exit 2 is a usage error (the invocation or its environment must
 * change); every failure is one line starting `regent: `, never `regent: Error: `.
 */
import { expect } from 'chai';
import { STORE_URL_FORMS } from '../../src/store/open.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFailure, exitCodeFor } from '../../src/cli/errors.js';
import { Engine } from '../../src/engine/engine.js';
import { openStore } from '../../src/store/open.js';
import { MachineRegistry } from '../../machines/registry.js';
import { toyDefinition } from '../fixtures/toy-machine.js';

/** The environment a user without a cluster has: no kubeconfig, not in a pod. */
const withoutKubernetes = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KUBECONFIG: '', REGENT_LOG_LEVEL: 'warn' };
  delete env.KUBERNETES_SERVICE_HOST;
  delete env.KUBERNETES_SERVICE_PORT;
  delete env.REGENT_STORE;
  delete env.REGENT_RESOURCES;
  return env;
};

const SERVER = (name: string) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: {name: ${name}}
spec: {name: ${name}, image: {name: cirros}, flavor: {name: m1.small}, networkID: net-a}
`;
const INVALID_VOLUME = `apiVersion: regent.dev/v1alpha1
kind: Volume
metadata: {name: v}
spec: {networkID: net-a, size: 0, volumeClassID: x}
`;

describe('how the regent command fails', function () {
  this.timeout(30_000);
  let dir: string;
  let db: string;
  let env: NodeJS.ProcessEnv;
  const regent = (args: string[], input?: string) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', ...args], { encoding: 'utf8', env, ...(input === undefined ? {} : { input }) });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-failures-'));
    mkdirSync(join(dir, 'home'));
    env = withoutKubernetes(join(dir, 'home'));
    db = join(dir, 'regent.db');
    const store = await openStore(`sqlite:${db}`);
    let tick = Date.parse('2026-11-29T10:00:00Z');
    const engine = new Engine({ store, registry: new MachineRegistry([toyDefinition()]), now: () => new Date((tick += 60_000)), handlers: { 'toy.create': async () => undefined } });
    const reconcile = { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'reconciler/toy' } as const;
    await engine.dispatch('toy-a', reconcile);
    await engine.dispatch('toy-a', reconcile);
    await engine.dispatch('toy-a', { stimulus: { type: 'observed', source: 'monitor', exists: true }, actor: 'monitor/toy' });
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('an unknown scheme is a usage error naming the accepted forms', () => {
    it('--store bogus:foo exits 2 with one line naming sqlite:<path> and memory:', () => {
      const { code, err } = regent(['--store', 'bogus:foo', 'streams']);
      expect({ code, err }).to.deep.equal({ code: 2, err: `regent: unsupported store URL "bogus:foo": expected ${STORE_URL_FORMS}\n` });
    });

    it('--resources bogus:foo exits 2 with one line naming embedded:<path> and kubernetes[:<context>]', () => {
      const { code, err } = regent(['get', 'servers', '--resources', 'bogus:foo']);
      expect({ code, err }).to.deep.equal({ code: 2, err: 'regent: unknown resource source "bogus:foo": expected embedded:<path> or kubernetes[:<context>]\n' });
    });
  });

  describe('replay --at outside the recorded history is a usage error naming its bounds', () => {
    const toy = () => ['--store', `sqlite:${db}`, '--machines', 'test/fixtures/toy-registry.ts'];

    it('a revision past the head exits 2 naming the revisions the stream has (not the head, silently)', () => {
      const { code, out, err } = regent([...toy(), 'replay', 'toy-a', '--at', '999']);
      expect({ code, out, err }).to.deep.equal({ code: 2, out: '', err: 'regent: --at 999: stream toy-a has revisions 0…2\n' });
    });

    it('a time before the first event exits 2 naming when the stream starts', () => {
      const { code, out, err } = regent([...toy(), 'replay', 'toy-a', '--at', '2020-01-01T00:00:00Z']);
      expect({ code, out, err }).to.deep.equal({ code: 2, out: '', err: 'regent: --at 2020-01-01T00:00:00Z: stream toy-a starts at 2026-11-29T10:01:00.000Z (revision 0)\n' });
    });

    it('the head revision itself, and a time after the head, are points of the history', () => {
      expect(regent([...toy(), 'replay', 'toy-a', '--at', '2']).code).to.equal(0);
      expect(regent([...toy(), 'replay', 'toy-a', '--at', '2030-01-01T00:00:00Z']).code).to.equal(0);
    });
  });

  describe('apply names the file and the document a problem came from', () => {
    it('-f a.yaml -f b.yaml with an invalid document in b.yaml names b.yaml and document 2, and applies nothing of a.yaml', () => {
      const resources = `embedded:${join(dir, 'apply.db')}`;
      writeFileSync(join(dir, 'a.yaml'), SERVER('web-1'));
      writeFileSync(join(dir, 'b.yaml'), `${SERVER('web-2')}---\n${INVALID_VOLUME}`);
      const { code, err } = regent(['apply', '-f', join(dir, 'a.yaml'), '-f', join(dir, 'b.yaml'), '--resources', resources]);
      expect(code).to.equal(1);
      expect(err).to.equal(`regent: ${join(dir, 'b.yaml')}: document 2: Volume "default/v" is invalid: spec.size: Invalid value: 0: must be greater than or equal to 1; spec.volumeClassID: Invalid value: "x": must be a UUID\n`);
      expect(regent(['get', 'servers', '--resources', resources]).out).to.equal('No resources found.\n');
    });

    it('a YAML error on stdin names - and the document, on one line', () => {
      const { code, err } = regent(['apply', '-f', '-', '--resources', `embedded:${join(dir, 'stdin.db')}`], `${SERVER('web-1')}---\n[1\n`);
      expect({ code, err }).to.deep.equal({ code: 1, err: 'regent: -: document 2: Flow sequence must end with a ] at line 7, column 1\n' });
    });
  });

  describe('--resources kubernetes with no cluster configured', () => {
    it('without KUBECONFIG, ~/.kube/config or a service account says so plainly: exit 2, one line naming all three', () => {
      const { code, err } = regent(['get', 'servers', '--resources', 'kubernetes']);
      expect({ code, err }).to.deep.equal({
        code: 2,
        err: `regent: no kubeconfig found: KUBECONFIG is not set, ${join(dir, 'home', '.kube', 'config')} does not exist, and there is no in-cluster service account (/var/run/secrets/kubernetes.io/serviceaccount/token)\n`,
      });
    });

    it('a KUBECONFIG that names a missing file says which file, not `Error: ENOENT`', () => {
      const missing = join(dir, 'no-such-kubeconfig.yaml');
      const saved = env;
      env = { ...env, KUBECONFIG: missing };
      try {
        const { code, err } = regent(['get', 'servers', '--resources', 'kubernetes']);
        expect({ code, err }).to.deep.equal({ code: 2, err: `regent: cannot read kubeconfig ${missing} (KUBECONFIG): ENOENT\n` });
      } finally {
        env = saved;
      }
    });

    it('a context the kubeconfig does not have is named, with the ones it has (no request is sent)', () => {
      const kubeconfig = join(dir, 'kubeconfig.yaml');
      writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: lab, context: {cluster: c, user: u}}]
current-context: lab
`);
      const saved = env;
      env = { ...env, KUBECONFIG: kubeconfig };
      try {
        const { code, err } = regent(['get', 'servers', '--resources', 'kubernetes:prod']);
        expect({ code, err }).to.deep.equal({ code: 2, err: 'regent: kubeconfig has no context "prod" (it has: lab)\n' });
      } finally {
        env = saved;
      }
    });
  });

  describe('no `regent: Error:` prefix', () => {
    it('a plain Error prints as its message; a class that says what kind of fault keeps its name', () => {
      expect(describeFailure(new Error('boom'))).to.equal('boom');
      expect(describeFailure(new TypeError('x is not a function'))).to.equal('TypeError: x is not a function');
      expect(exitCodeFor(new Error('boom'))).to.equal(1);
    });

    it('--machines registering a version twice names the module, exit 2', () => {
      const { code, err } = regent(['--store', `sqlite:${db}`, '--machines', 'test/fixtures/toy-registry.ts', '--machines', 'test/fixtures/toy-registry.ts', 'replay', 'toy-a']);
      expect({ code, err }).to.deep.equal({ code: 2, err: 'regent: --machines test/fixtures/toy-registry.ts: machine toy v1 is registered twice\n' });
    });
  });

  describe('a command that only reads never creates a resource store', () => {
    it('get on a missing embedded store exits 2 with one line, and creates neither the file nor its folder', () => {
      const missing = join(dir, 'no', 'such', 'dir');
      const { code, err } = regent(['get', 'servers', '--resources', `embedded:${join(missing, 'r.db')}`]);
      expect({ code, err }).to.deep.equal({
        code: 2,
        err: `regent: no resource store at ${join(missing, 'r.db')} (apply a manifest with \`regent apply -f\`, start Regent with \`npm start\`, or pass --resources embedded:<path>)\n`,
      });
      expect(existsSync(join(dir, 'no')), 'the folder').to.equal(false);
    });

    it('delete on a missing embedded store is refused the same way', () => {
      const { code, err } = regent(['delete', 'server', 'web-1', '--resources', `embedded:${join(dir, 'gone', 'r.db')}`]);
      expect(code).to.equal(2);
      expect(err).to.match(/^regent: no resource store at .*gone\/r\.db \(/);
      expect(existsSync(join(dir, 'gone'))).to.equal(false);
    });

    it('apply still creates the store (and its folder)', () => {
      writeFileSync(join(dir, 'one.yaml'), SERVER('web-1'));
      const path = join(dir, 'fresh', 'r.db');
      const { code, out } = regent(['apply', '-f', join(dir, 'one.yaml'), '--resources', `embedded:${path}`]);
      expect({ code, out }).to.deep.equal({ code: 0, out: 'server.regent.dev/web-1 created\n' });
      expect(existsSync(path)).to.equal(true);
    });
  });
});
