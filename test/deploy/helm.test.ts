/**
 * deploy/helm/regent without helm (not installable here): Chart.yaml and values.yaml, every template
 * balanced and parseable as YAML with its actions replaced by placeholders, every `.Values` path and
 * every `include` resolvable, the chart's defaults equal to deploy/manifests, and crds/ identical to
 * deploy/crds/.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART, DEPLOY, PLACEHOLDER, actionsOf, at, chartTemplates, literalDefines, loadChartObjects, loadManifests, only, read, templateAsYaml, parseDocuments, type KubeObject } from './support/files.js';
import { podSpecOf } from './support/deployment.js';
import { leaseName } from './support/adapter.js';

const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;

/** True when `actual` is what `template` renders to for some placeholder values (placeholders match anything). */
const matches = (template: unknown, actual: unknown): boolean => {
  if (typeof template === 'string' && template.includes(PLACEHOLDER)) {
    const pattern = template.split(PLACEHOLDER).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+');
    return new RegExp(`^${pattern}$`).test(String(actual));
  }
  if (Array.isArray(template)) return Array.isArray(actual) && template.length === actual.length && template.every((t, i) => matches(t, actual[i]));
  if (template !== null && typeof template === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    const keys = new Set([...Object.keys(template), ...Object.keys(actual)]);
    return [...keys].every((k) => matches((template as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k]));
  }
  return template === actual;
};

describe('deploy: helm chart', () => {
  const templates = chartTemplates();
  const helpers = templates.find((t) => t.file === '_helpers.tpl')!.text;

  it('Chart.yaml: apiVersion v2, name regent, appVersion = package.json version (the default image tag)', () => {
    const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
    expect(chart).to.include({ apiVersion: 'v2', name: 'regent', type: 'application' });
    expect(chart.version).to.match(/^\d+\.\d+\.\d+/);
    expect(chart.appVersion).to.equal((JSON.parse(read('package.json')) as { version: string }).version);
    expect(helpers).to.match(/default \.Chart\.AppVersion \.Values\.image\.tag/);
  });

  it('values.yaml: two replicas, image, resources, cloud Secret, logLevel, storeUrl, monitorIntervalMs, metrics port, serviceMonitor toggle, persistence', () => {
    expect(values.replicaCount).to.equal(2);
    expect(at(values, 'image', 'repository')).to.be.a('string');
    expect(Object.keys(at(values, 'resources') as object).sort()).to.deep.equal(['limits', 'requests']);
    expect(at(values, 'openstack', 'secretName')).to.be.a('string');
    expect(at(values, 'openstack', 'cloud')).to.be.a('string').and.not.equal('');
    expect(values).to.include.keys('logLevel', 'storeUrl', 'monitorIntervalMs');
    expect(at(values, 'metrics', 'port')).to.be.a('number');
    expect(at(values, 'serviceMonitor', 'enabled')).to.equal(false);
    expect(at(values, 'persistence', 'enabled')).to.equal(true);
  });

  it('every template is balanced: each if/with/range/define has its end', () => {
    for (const { file, text } of templates) {
      expect(text.split('{{').length, `${file}: {{ vs }}`).to.equal(text.split('}}').length);
      const actions = actionsOf(text);
      const opened = actions.filter((a) => /^(if|with|range|define|block)\b/.test(a)).length;
      const closed = actions.filter((a) => /^end\b/.test(a)).length;
      expect(closed, `${file}: ends`).to.equal(opened);
    }
  });

  it('every template parses as strict YAML once its actions are replaced by placeholders', () => {
    for (const { file, text } of templates.filter((t) => t.file.endsWith('.yaml'))) {
      expect(() => parseDocuments(templateAsYaml(text), file), file).to.not.throw();
    }
  });

  it('the templates hold the whole install: ServiceAccount, RBAC, PVC, Deployment, metrics Service, ServiceMonitor', () => {
    expect(loadChartObjects().map((o) => o.object.kind).sort()).to.deep.equal(
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'PersistentVolumeClaim', 'Role', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'RoleBinding', 'Service', 'ServiceAccount', 'ServiceMonitor'].sort(),
    );
  });

  it('every .Values path a template reads exists in values.yaml', () => {
    for (const { file, text } of templates) {
      for (const m of text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
        const path = m[1]!.slice(1).split('.');
        expect(at(values, ...path), `${file}: .Values.${path.join('.')}`).to.not.equal(undefined);
      }
    }
  });

  it('every include names a define of _helpers.tpl', () => {
    const defined = new Set([...helpers.matchAll(/define\s+"([^"]+)"/g)].map((m) => m[1]!));
    for (const { file, text } of templates) {
      for (const m of text.matchAll(/(?:include|template)\s+"([^"]+)"/g)) expect(defined.has(m[1]!), `${file}: ${m[1]!}`).to.equal(true);
    }
  });

  it('the Lease name is the one the code elects on (it is not a value: the code fixes it)', () => {
    expect(literalDefines(helpers).get('regent.leaseName')).to.equal(leaseName());
  });

  it('the ServiceMonitor and the PVC are behind their toggles; more than one replica without persistence fails the install', () => {
    const first = (file: string) => actionsOf(templates.find((t) => t.file === file)!.text)[0];
    expect(first('servicemonitor.yaml')).to.equal('if .Values.serviceMonitor.enabled');
    expect(first('pvc.yaml')).to.equal('if and .Values.persistence.enabled (not .Values.persistence.existingClaim) (not .Values.store.existingSecret)');
    const deployment = templates.find((t) => t.file === 'deployment.yaml')!.text;
    expect(actionsOf(deployment).slice(0, 2)).to.deep.equal([
      'if and (not .Values.persistence.enabled) (not .Values.store.existingSecret) (gt (int .Values.replicaCount) 1)',
      'fail "replicaCount > 1 needs persistence.enabled (or store.existingSecret): the replicas must share one event store"',
    ]);
  });

  it('bindings and the pod use the ServiceAccount helper, in the release namespace', () => {
    const text = (file: string) => templates.find((t) => t.file === file)!.text;
    expect(text('deployment.yaml')).to.include('serviceAccountName: {{ include "regent.serviceAccountName" . }}');
    // Subjects of the ClusterRoleBinding and the three RoleBindings (lease, secrets, nova); the Roles, RoleBindings and subjects' namespaces.
    expect(text('rbac.yaml').split('name: {{ include "regent.serviceAccountName" . }}').length - 1).to.equal(4);
    expect(text('rbac.yaml').split('namespace: {{ .Release.Namespace }}').length - 1).to.equal(10);
  });

  describe('with default values it installs what deploy/manifests installs', () => {
    const plain = loadManifests();
    const chart = loadChartObjects();
    const plainPod = podSpecOf(only(plain, 'Deployment'));
    const chartPod = podSpecOf(only(chart, 'Deployment'));
    const plainContainer = plainPod.containers[0]!;
    const chartContainer = chartPod.containers[0]!;
    const plainEnv = Object.fromEntries(plainContainer.env.map((e) => [e.name, e.value]));

    // the template holds both branches of `if .Values.audit.expose`; the default (false) one has neither the audit flags nor the JWKS mount
    const auditFlags = chartContainer.args.indexOf('--audit-host');
    const defaultContainer = {
      ...chartContainer,
      args: auditFlags < 0 ? chartContainer.args : chartContainer.args.slice(0, auditFlags),
      volumeMounts: chartContainer.volumeMounts.filter((m: { name: string }) => m.name !== 'audit-jwks'),
    };

    it('same command, args, env names, ports, probes, mounts and security contexts (placeholders aside)', () => {
      for (const key of ['command', 'args', 'ports', 'startupProbe', 'livenessProbe', 'readinessProbe', 'volumeMounts', 'securityContext'] as const) {
        expect(matches(defaultContainer[key], plainContainer[key]), `container ${key}: ${JSON.stringify(defaultContainer[key])} vs ${JSON.stringify(plainContainer[key])}`).to.equal(true);
      }
      expect(chartContainer.env.map((e) => e.name)).to.deep.equal(plainContainer.env.map((e) => e.name));
      // REGENT_STORE holds both branches of `if .Values.store.existingSecret`: the default one is `value`
      const defaultBranch = chartContainer.env.map((e) => (e.name === 'REGENT_STORE' ? { name: e.name, value: e.value } : e));
      expect(matches(defaultBranch, plainContainer.env)).to.equal(true);
      expect(chartPod.securityContext).to.deep.equal(plainPod.securityContext);
      expect(matches(at(only(chart, 'Deployment'), 'spec', 'strategy'), at(only(plain, 'Deployment'), 'spec', 'strategy'))).to.equal(true);
    });

    it('issue 18, no open door: the audit pages are not exposed by default (--host 0.0.0.0 serves only the probes and /metrics); audit.expose adds --audit-host 0.0.0.0 with the JWKS Secret mounted, and requires that Secret', () => {
      expect(at(values, 'audit', 'expose')).to.equal(false);
      expect(plainContainer.args).to.not.include('--audit-host');
      expect(chartContainer.args.slice(auditFlags)).to.deep.equal(['--audit-host', '0.0.0.0', '--audit-port', PLACEHOLDER, '--audit-jwks', '/etc/regent/audit/jwks.json']);
      expect(chartContainer.volumeMounts.find((m: { name: string }) => m.name === 'audit-jwks')).to.deep.include({ mountPath: '/etc/regent/audit', readOnly: true });
      const deployment = chartTemplates().find((t) => t.file === 'deployment.yaml')!.text;
      expect(deployment).to.match(/secretName: \{\{ required "audit\.jwksSecret: [^"]+" \.Values\.audit\.jwksSecret \}\}/);
      expect(deployment.indexOf('{{- if .Values.audit.expose }}')).to.be.greaterThan(0);
    });

    it('the default values are the plain manifests’ settings', () => {
      const arg = (flag: string) => plainContainer.args[plainContainer.args.indexOf(flag) + 1];
      expect(values.replicaCount).to.equal(at(only(plain, 'Deployment'), 'spec', 'replicas'));
      expect(String(at(values, 'metrics', 'port'))).to.equal(arg('--port'));
      expect(String(values.monitorIntervalMs)).to.equal(arg('--monitor-interval'));
      expect(values.storeUrl).to.equal(plainEnv.REGENT_STORE);
      expect(values.logLevel).to.equal(plainEnv.REGENT_LOG_LEVEL);
      expect(at(values, 'openstack', 'cloud')).to.equal(plainEnv.OS_CLOUD);
      expect(`/etc/openstack/${String(at(values, 'openstack', 'cloudsYamlKey'))}`).to.equal(plainEnv.OS_CLIENT_CONFIG_FILE);
      expect(at(values, 'openstack', 'secretName')).to.equal(plainPod.volumes.find((v) => v.secret)?.secret?.secretName);
      expect(values.resources).to.deep.equal(plainContainer.resources);
      expect(at(values, 'persistence', 'size')).to.equal(at(only(plain, 'PersistentVolumeClaim'), 'spec', 'resources', 'requests', 'storage'));
      expect(at(values, 'image', 'repository')).to.equal(plainContainer.image.split(':')[0]);
    });
  });

  describe('with store.existingSecret it installs what deploy/manifests/postgres installs', () => {
    const text = templates.find((t) => t.file === 'deployment.yaml')!.text;
    const chartPod = podSpecOf(only(loadChartObjects(), 'Deployment'));
    const postgresPod = podSpecOf(parseDocuments(read('deploy', 'manifests', 'postgres', '40-deployment.yaml'), '40-deployment.yaml')[0] as KubeObject);
    const storeOf = (pod: typeof chartPod) => pod.containers[0]!.env.find((e) => e.name === 'REGENT_STORE') as { valueFrom?: unknown } | undefined;

    it('REGENT_STORE from the Secret and key the values name (placeholders), in the branch of `if .Values.store.existingSecret`', () => {
      expect(matches(storeOf(chartPod)?.valueFrom, storeOf(postgresPod)?.valueFrom)).to.equal(true);
      expect(text).to.match(/- name: REGENT_STORE\n\s+\{\{- if \.Values\.store\.existingSecret \}\}\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: \{\{ \.Values\.store\.existingSecret \}\}\n\s+key: \{\{ \.Values\.store\.secretKey \}\}\n\s+\{\{- else \}\}\n\s+value: \{\{ \.Values\.storeUrl \| quote \}\}/);
      expect(at(values, 'store', 'existingSecret')).to.equal('');
      expect(at(values, 'store', 'secretKey')).to.equal('url');
    });

    it('no PVC claimed and the replicas spread (the podAntiAffinity of manifests/postgres), unless affinity is given', () => {
      expect(text).to.include('{{- if and .Values.persistence.enabled (not .Values.store.existingSecret) }}');
      expect(text).to.match(/\{\{- if \.Values\.affinity \}\}[\s\S]*\{\{- else if \.Values\.store\.existingSecret \}\}\n[^\n]*\n\s+podAntiAffinity:[\s\S]*\{\{- else \}\}[\s\S]*podAffinity:/);
      const term = (pod: unknown) => at(pod, 'affinity', 'podAntiAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', 0);
      expect(at(term(chartPod), 'weight')).to.equal(at(term(postgresPod), 'weight'));
      expect(at(term(chartPod), 'podAffinityTerm', 'topologyKey')).to.equal(at(term(postgresPod), 'podAffinityTerm', 'topologyKey'));
    });
  });

  it('crds/ holds byte-identical copies of deploy/crds/*.yaml (helm installs them before the templates)', () => {
    const source = readdirSync(join(DEPLOY, 'crds')).filter((f) => f.endsWith('.yaml')).sort();
    expect(readdirSync(join(CHART, 'crds')).sort()).to.deep.equal(source);
    for (const file of source) {
      expect(readFileSync(join(CHART, 'crds', file)).equals(readFileSync(join(DEPLOY, 'crds', file))), `${file} differs: cp deploy/crds/*.yaml deploy/helm/regent/crds/`).to.equal(true);
    }
  });
});
