/**
 * deploy/manifests/: a namespace-scoped install of two control-plane replicas. Each test states a rule
 * the install depends on; the values are read from the code where the code decides them (the CLI parses
 * the Deployment's args, the logger accepts its level, the store URL parses).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStoreUrl } from '../../src/store/open.js';
import { logLevelFromEnv } from '../../src/log/logger.js';
import { at, loadManifests, only, parseDocuments, read, ROOT, yamlFiles, MANIFESTS, type KubeObject } from './support/files.js';
import { importClosure } from './support/adapter.js';
import { parseStartArgs, podSpecOf } from './support/deployment.js';

describe('deploy: manifests', () => {
  const objects = loadManifests();
  const deployment = only(objects, 'Deployment');
  const pod = podSpecOf(deployment);
  const container = pod.containers[0]!;
  const env = Object.fromEntries(container.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
  const volume = (mountPath: string) => {
    const mount = container.volumeMounts.find((m) => m.mountPath === mountPath);
    return mount && pod.volumes.find((v) => v.name === mount.name);
  };
  const httpPort = () => container.ports.find((p) => p.name === 'http')!;

  it('every file parses as strict YAML (no duplicate keys) into objects with apiVersion, kind and metadata.name', () => {
    expect(yamlFiles(MANIFESTS)).to.have.length.greaterThan(0);
    for (const file of yamlFiles(MANIFESTS)) expect(objects.some((o) => o.file === file), `${file} holds an object`).to.equal(true);
  });

  it('holds exactly the objects of the install', () => {
    expect(objects.map((o) => o.object.kind).sort()).to.deep.equal(
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Namespace', 'PersistentVolumeClaim', 'Role', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'RoleBinding', 'Service', 'ServiceAccount'].sort(),
    );
  });

  it('every namespaced object is in the install namespace, and the Namespace comes first in apply order', () => {
    const namespace = only(objects, 'Namespace').metadata.name;
    for (const { object } of objects.filter((o) => !['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(o.object.kind))) {
      expect(object.metadata.namespace, `${object.kind}/${object.metadata.name}`).to.equal(namespace);
    }
    expect(objects[0]!.object.kind).to.equal('Namespace');
  });

  describe('the Deployment', () => {
    it('runs two replicas and rolls one new pod at a time without dropping below two', () => {
      expect(at(deployment, 'spec', 'replicas')).to.equal(2);
      expect(at(deployment, 'spec', 'strategy', 'rollingUpdate')).to.deep.equal({ maxSurge: 1, maxUnavailable: 0 });
    });

    it('selects its own pods, and the metrics Service selects them too and targets the http port', () => {
      const labels = at(deployment, 'spec', 'template', 'metadata', 'labels') as Record<string, string>;
      const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
      expect(selects(at(deployment, 'spec', 'selector', 'matchLabels') as Record<string, string>)).to.equal(true);
      const service = only(objects, 'Service');
      expect(selects(at(service, 'spec', 'selector') as Record<string, string>)).to.equal(true);
      expect(at(service, 'spec', 'ports', 0, 'targetPort')).to.equal('http');
      expect(at(service, 'spec', 'ports', 0, 'port')).to.equal(httpPort().containerPort);
    });

    it('runs `node bin/regent.js start` (what `npx regent` runs), and the real CLI accepts its args: kubernetes source, no examples, HTTP on the pod IP', async () => {
      expect(container.command).to.deep.equal(['node', 'bin/regent.js']);
      expect((JSON.parse(read('package.json')) as { bin: Record<string, string> }).bin.regent).to.equal('bin/regent.js');
      const options = await parseStartArgs(container.args, env);
      expect(options).to.include({ resourcesUrl: 'kubernetes', host: '0.0.0.0', port: httpPort().containerPort, storeUrl: env.REGENT_STORE });
      expect(options.examples).to.equal(undefined);
      expect(options.monitorIntervalMs).to.be.a('number');
    });

    it('probes: startup and liveness on /healthz, readiness on /readyz, all on the port the endpoint listens on', () => {
      expect(container.readinessProbe?.httpGet).to.deep.equal({ path: '/readyz', port: 'http' });
      expect(container.livenessProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(container.startupProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      const served = read('src/app/http-server.ts');
      for (const path of ['/healthz', '/readyz', '/metrics']) expect(served, `src/app/http-server.ts serves ${path}`).to.include(`'${path}'`);
    });

    it('keeps the event store on the shared volume: REGENT_STORE is a sqlite file under the PVC mount, and the replicas share one node', () => {
      const location = parseStoreUrl(env.REGENT_STORE!);
      expect(location.kind).to.equal('sqlite');
      const path = (location as { path: string }).path;
      const data = container.volumeMounts.find((m) => path.startsWith(`${m.mountPath}/`));
      expect(data, `a volume mounted above ${path}`).to.not.equal(undefined);
      const claim = pod.volumes.find((v) => v.name === data!.name)?.persistentVolumeClaim?.claimName;
      const pvc = only(objects, 'PersistentVolumeClaim', claim);
      expect(at(pvc, 'spec', 'accessModes')).to.deep.equal(['ReadWriteOnce']);
      const term = at(pod, 'affinity', 'podAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 0) as { labelSelector: { matchLabels: Record<string, string> }; topologyKey: string };
      expect(term.topologyKey).to.equal('kubernetes.io/hostname');
      expect(term.labelSelector.matchLabels).to.deep.equal(at(deployment, 'spec', 'selector', 'matchLabels'));
    });

    it('passes the cloud: OS_CLOUD names an entry, OS_CLIENT_CONFIG_FILE is inside the mounted Secret (without them Regent would start its simulator)', () => {
      expect(env.OS_CLOUD).to.be.a('string').and.not.equal('');
      const secret = volume('/etc/openstack');
      expect(secret?.secret?.secretName).to.equal('regent-openstack');
      expect(env.OS_CLIENT_CONFIG_FILE).to.equal('/etc/openstack/clouds.yaml');
      expect(container.volumeMounts.find((m) => m.mountPath === '/etc/openstack')?.readOnly).to.equal(true);
      expect(read('src/app/openstack-target.ts')).to.include('env.OS_CLOUD');
    });

    it('tells the control plane its namespace (POD_NAMESPACE from the downward API), where it elects on the Lease', () => {
      expect(container.env.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).to.equal('metadata.namespace');
      expect(read('src/app/control-plane.ts')).to.include('process.env.POD_NAMESPACE');
    });

    it('logs at a level the logger accepts', () => {
      expect(logLevelFromEnv({ REGENT_LOG_LEVEL: env.REGENT_LOG_LEVEL })).to.equal(env.REGENT_LOG_LEVEL);
    });

    it('requests and limits cpu and memory', () => {
      for (const bound of ['requests', 'limits'] as const) {
        expect(Object.keys(container.resources?.[bound] ?? {}).sort(), bound).to.deep.equal(['cpu', 'memory']);
      }
    });

    it('is locked down: non-root, read-only root filesystem, no privilege escalation, every capability dropped, RuntimeDefault seccomp', () => {
      expect(pod.securityContext).to.include({ runAsNonRoot: true });
      expect(pod.securityContext.runAsUser).to.be.a('number').and.greaterThan(0);
      expect(at(pod.securityContext, 'seccompProfile', 'type')).to.equal('RuntimeDefault');
      expect(container.securityContext).to.deep.include({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    });

    it('writes only to /data (the PVC) and /tmp (an emptyDir: tsx caches compiled sources there); the Secret is read-only', () => {
      const writable = container.volumeMounts.filter((m) => !m.readOnly).map((m) => m.mountPath).sort();
      expect(writable).to.deep.equal(['/data', '/tmp']);
      expect(volume('/tmp')?.emptyDir).to.not.equal(undefined);
      expect(volume('/data')?.persistentVolumeClaim).to.not.equal(undefined);
    });

    it("runs this version's image", () => {
      const version = (JSON.parse(read('package.json')) as { version: string }).version;
      expect(container.image).to.equal(`regent:${version}`);
    });
  });
});

describe('deploy: Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const lines = dockerfile.split('\n').filter((l) => !l.startsWith('#'));
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;
  const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; engines: { node: string } };
  const deployment = only(loadManifests(), 'Deployment');
  const pod = podSpecOf(deployment);
  const json = (instruction: string): unknown => JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(runtime)?.[1] ?? 'null');

  it('builds on node:20-bookworm-slim in both stages, a Node that package.json engines accepts', () => {
    expect(lines.filter((l) => l.startsWith('FROM ')).map((l) => l.split(' ')[1])).to.deep.equal(['node:20-bookworm-slim', 'node:20-bookworm-slim']);
    expect(pkg.engines.node).to.match(/^>=20\./);
  });

  it('installs production dependencies only, which is enough because tsx and better-sqlite3 are runtime dependencies', () => {
    expect(dockerfile).to.match(/npm ci --omit=dev/);
    for (const name of ['tsx', 'better-sqlite3', '@kubernetes/client-node', 'prom-client']) {
      expect(pkg.dependencies, name).to.have.property(name);
      expect(pkg.devDependencies, name).to.not.have.property(name);
    }
    expect(stages[0], 'a toolchain for better-sqlite3 when no prebuilt binary fits').to.match(/python3 make g\+\+/);
  });

  it('copies every top-level folder the CLI imports at runtime', () => {
    const folders = new Set(['bin', ...importClosure('src/cli/entry.ts', []).map((file) => file.split('/')[0]!)]);
    expect([...folders]).to.include.members(['src', 'machines', 'projections', 'migrations']);
    const copied = new Set([...dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)].map((m) => m[1]!.replace(/\/$/, '')));
    for (const folder of folders) expect(copied, `COPY ${folder}`).to.include(folder);
    for (const file of ['package.json', 'package-lock.json']) expect(dockerfile).to.include(file);
  });

  it('runs as the non-root user the Deployment declares, with the Deployment command and args as its defaults', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(runtime);
    expect(user, 'USER uid:gid, numeric (runAsNonRoot can only verify a number)').to.not.equal(null);
    expect(Number(user![1])).to.equal(pod.securityContext.runAsUser).and.greaterThan(0);
    expect(Number(user![2])).to.equal(pod.securityContext.runAsGroup);
    expect(json('ENTRYPOINT')).to.deep.equal(pod.containers[0]!.command);
    expect(json('CMD')).to.deep.equal(pod.containers[0]!.args);
    expect(/^EXPOSE (\d+)$/m.exec(runtime)?.[1]).to.equal(String(pod.containers[0]!.ports[0]!.containerPort));
  });
});

describe('deploy: manifests/postgres (the shared PostgreSQL store layout)', () => {
  const sqlite = only(loadManifests(), 'Deployment');
  const files = yamlFiles(join(MANIFESTS, 'postgres'));
  const postgres = parseDocuments(readFileSync(join(MANIFESTS, 'postgres', '40-deployment.yaml'), 'utf8'), '40-deployment.yaml') as KubeObject[];
  const deployment = postgres[0]!;
  const pod = podSpecOf(deployment);
  const container = pod.containers[0]!;

  it('holds one Deployment, the same one as manifests/ (name, replicas, strategy, labels, command, args, probes, mounts, security) but for the store', () => {
    expect(files).to.deep.equal(['40-deployment.yaml']);
    expect(postgres.map((o) => o.kind)).to.deep.equal(['Deployment']);
    const without = (d: KubeObject) => {
      const copy = JSON.parse(JSON.stringify(d)) as KubeObject;
      const spec = podSpecOf(copy);
      delete spec.affinity;
      spec.containers[0]!.env = spec.containers[0]!.env.filter((e) => e.name !== 'REGENT_STORE');
      spec.volumes = spec.volumes.filter((v) => v.name !== 'data');
      return copy;
    };
    expect(without(deployment)).to.deep.equal(without(sqlite));
  });

  it('REGENT_STORE comes from the Secret regent-store (the URL carries a password), never a literal in the spec', () => {
    const store = container.env.find((e) => e.name === 'REGENT_STORE') as { value?: string; valueFrom?: unknown } | undefined;
    expect(store?.value).to.equal(undefined);
    expect(store?.valueFrom).to.deep.equal({ secretKeyRef: { name: 'regent-store', key: 'url' } });
    expect(readFileSync(join(MANIFESTS, 'postgres', '40-deployment.yaml'), 'utf8')).to.not.match(/postgres:\/\/[^<\s]*:[^<\s]*@/); // the example URL is a placeholder
  });

  it('nothing to share on a node: no PVC and no required co-location; the replicas prefer different nodes', () => {
    const data = pod.volumes.find((v) => v.name === 'data');
    expect(data?.persistentVolumeClaim).to.equal(undefined);
    expect(data?.emptyDir).to.not.equal(undefined);
    expect(at(pod, 'affinity', 'podAffinity')).to.equal(undefined);
    const term = at(pod, 'affinity', 'podAntiAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', 0, 'podAffinityTerm') as Record<string, unknown>;
    expect(term.topologyKey).to.equal('kubernetes.io/hostname');
    expect(at(term, 'labelSelector', 'matchLabels')).to.deep.equal(at(deployment, 'spec', 'selector', 'matchLabels'));
  });

  it('its args are what `regent start` accepts (the same as manifests/)', async () => {
    expect(container.args).to.deep.equal(podSpecOf(sqlite).containers[0]!.args);
    const options = await parseStartArgs(container.args, { REGENT_STORE: 'postgres://regent:secret@db.example:5432/regent' });
    expect(options).to.not.equal(undefined);
  });
});

