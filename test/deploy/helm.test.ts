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
import { CHART, DEPLOY, PLACEHOLDER, actionsOf, at, chartTemplates, expandLiteralIncludes, literalDefines, loadChartObjects, loadManifests, only, read, templateAsYaml, parseDocuments, type KubeObject, type Loaded } from './support/files.js';
import { parseStartArgs, podSpecOf } from './support/deployment.js';
import { leaseName } from './support/adapter.js';

const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;

/**
 * Decides the `if .Values.<path>` blocks of the given toggles (an action alone on its line, as the chart writes them)
 * the way helm would for those values: the taken branch stays, the other is dropped; every other action is left for
 * templateAsYaml. Enough to check what a toggle adds and what it leaves out without a helm binary.
 */
const renderToggles = (template: string, toggles: Readonly<Record<string, boolean>>): string => {
  const frames: Array<{ toggle: boolean; taken: boolean; active: boolean }> = [];
  const out: string[] = [];
  for (const line of template.split('\n')) {
    const action = /^\s*\{\{-?\s*(.*?)\s*-?\}\}\s*$/.exec(line)?.[1];
    const toggle = (condition: string | undefined) => {
      const path = /^\.Values\.([\w.]+)$/.exec(condition ?? '')?.[1];
      return path !== undefined && path in toggles ? toggles[path]! : undefined;
    };
    if (action !== undefined && /^(if|with|range|define|block)\b/.test(action)) {
      const value = action.startsWith('if ') ? toggle(action.slice(3)) : undefined;
      frames.push(value === undefined ? { toggle: false, taken: false, active: true } : { toggle: true, taken: value, active: value });
      if (value !== undefined) continue;
    } else if (action !== undefined && /^else\b/.test(action) && frames.at(-1)?.toggle) {
      const frame = frames.at(-1)!;
      const rest = action.slice('else'.length).trim();
      const value = rest === '' ? true : rest.startsWith('if ') ? toggle(rest.slice(3)) : undefined;
      if (value === undefined) throw new Error(`renderToggles: cannot decide {{ ${action} }}`);
      frame.active = !frame.taken && value;
      frame.taken ||= value;
      continue;
    } else if (action !== undefined && /^end\b/.test(action)) {
      if (frames.pop()?.toggle) continue;
    }
    if (frames.every((f) => f.active)) out.push(line);
  }
  return out.join('\n');
};

/** The chart's objects with the given toggles decided (loadChartObjects keeps both branches of every if). */
const chartObjectsWith = (toggles: Readonly<Record<string, boolean>>): Loaded[] => {
  const templates = chartTemplates();
  const defines = literalDefines(templates.find((t) => t.file === '_helpers.tpl')?.text ?? '');
  return templates
    .filter((t) => t.file.endsWith('.yaml'))
    .flatMap(({ file, text }) => parseDocuments(templateAsYaml(expandLiteralIncludes(renderToggles(text, toggles), defines)), file).map((value) => ({ file, object: value as KubeObject })));
};

/** The plural of every CRD in deploy/crds, and its group and scope. */
const crdNames = () =>
  readdirSync(join(DEPLOY, 'crds'))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseDocuments(read('deploy', 'crds', f), f) as KubeObject[])
    .map((crd) => ({ group: at(crd, 'spec', 'group'), plural: at(crd, 'spec', 'names', 'plural') as string, scope: at(crd, 'spec', 'scope') }));

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

  it('the templates hold the whole install: ServiceAccount, RBAC, PVC, Deployment, metrics Service, ServiceMonitor, the admission webhook\'s Service and configuration', () => {
    expect(loadChartObjects().map((o) => o.object.kind).sort()).to.deep.equal(
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'PersistentVolumeClaim', 'Role', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'RoleBinding', 'Service', 'Service', 'ServiceAccount', 'ServiceMonitor', 'ValidatingWebhookConfiguration'].sort(),
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

    // the template holds both branches of `if .Values.audit.expose` and `if .Values.admissionWebhook.enabled`; the default
    // (false) ones have neither the audit flags nor the JWKS mount, neither the webhook's flags, port nor TLS mount
    const auditFlags = chartContainer.args.indexOf('--audit-host');
    const webhookFlags = chartContainer.args.indexOf('--admission-webhook-port');
    const defaultContainer = {
      ...chartContainer,
      args: auditFlags < 0 ? chartContainer.args : chartContainer.args.slice(0, auditFlags),
      ports: chartContainer.ports.filter((p) => p.name !== 'admission'),
      volumeMounts: chartContainer.volumeMounts.filter((m: { name: string }) => m.name !== 'audit-jwks' && m.name !== 'admission-webhook-tls'),
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
      expect(chartContainer.args.slice(auditFlags, webhookFlags)).to.deep.equal(['--audit-host', '0.0.0.0', '--audit-port', PLACEHOLDER, '--audit-jwks', '/etc/regent/audit/jwks.json']);
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

  describe('admissionWebhook (issue 30: who changed it on Kubernetes)', () => {
    const MOUNT = '/etc/regent/admission-webhook';
    const off = chartObjectsWith({ 'admissionWebhook.enabled': false, 'audit.expose': false });
    const on = chartObjectsWith({ 'admissionWebhook.enabled': true, 'audit.expose': false });
    const containerOf = (objects: Loaded[]) => podSpecOf(only(objects, 'Deployment')).containers[0]!;
    const podOf = (objects: Loaded[]) => podSpecOf(only(objects, 'Deployment'));

    it('values: disabled by default, port 9443, tlsSecretName, caBundle and annotations', () => {
      expect(at(values, 'admissionWebhook')).to.deep.equal({ enabled: false, port: 9443, tlsSecretName: '', caBundle: '', annotations: {} });
    });

    it('disabled: no webhook configuration, no webhook Service, no flags, port, mount or volume', () => {
      expect(off.filter((o) => o.object.kind === 'ValidatingWebhookConfiguration')).to.deep.equal([]);
      expect(off.filter((o) => o.object.kind === 'Service').map((o) => o.object.metadata.name)).to.deep.equal([`${PLACEHOLDER}-metrics`]);
      const container = containerOf(off);
      expect(container.args.filter((a) => a.startsWith('--admission-webhook'))).to.deep.equal([]);
      expect(container.ports.map((p) => p.name)).to.deep.equal(['http']);
      expect(container.volumeMounts.map((m) => m.name)).to.not.include('admission-webhook-tls');
      expect(podOf(off).volumes.map((v) => v.name)).to.not.include('admission-webhook-tls');
      // the same as the chart without the toggle decided, minus that toggle's branch: the default install is unchanged
      expect(container.args).to.deep.equal(podSpecOf(only(loadManifests(), 'Deployment')).containers[0]!.args.map((a, i, all) => (['--port', '--monitor-interval'].includes(all[i - 1]!) ? PLACEHOLDER : a)));
    });

    it('enabled: a ValidatingWebhookConfiguration (v1) for every kind of deploy/crds, CREATE/UPDATE/DELETE, failurePolicy Ignore, sideEffects NoneOnDryRun, 5 s, AdmissionReview v1', () => {
      const configuration = only(on, 'ValidatingWebhookConfiguration');
      expect(configuration.apiVersion).to.equal('admissionregistration.k8s.io/v1');
      const webhooks = at(configuration, 'webhooks') as unknown[];
      expect(webhooks).to.have.length(1);
      const webhook = webhooks[0] as Record<string, unknown>;
      expect(webhook).to.deep.include({ name: 'record.regent.dev', admissionReviewVersions: ['v1'], sideEffects: 'NoneOnDryRun', failurePolicy: 'Ignore', timeoutSeconds: 5, matchPolicy: 'Equivalent' });
      const rules = webhook.rules as Array<Record<string, unknown>>;
      expect(rules).to.have.length(1);
      const crds = crdNames();
      expect(new Set(crds.map((c) => c.group))).to.deep.equal(new Set(['regent.dev']));
      expect(new Set(crds.map((c) => c.scope))).to.deep.equal(new Set(['Namespaced']));
      expect(rules[0]).to.deep.include({ apiGroups: ['regent.dev'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE', 'DELETE'], scope: 'Namespaced' });
      expect([...(rules[0]!.resources as string[])].sort(), 'every kind of deploy/crds, no subresource').to.deep.equal(crds.map((c) => c.plural).sort());
      const text = chartTemplates().find((t) => t.file === 'admission-webhook.yaml')!.text;
      expect(actionsOf(text)[0]).to.equal('if .Values.admissionWebhook.enabled');
      expect(text).to.match(/\{\{- with \.Values\.admissionWebhook\.caBundle \}\}\n\s+caBundle: \{\{ \. \}\}/);
      expect(text).to.match(/\{\{- with \.Values\.admissionWebhook\.annotations \}\}\n\s+annotations:/);
    });

    it('enabled: clientConfig names the webhook Service, whose port targets the container\'s admission port; POST /validate', () => {
      const webhook = at(only(on, 'ValidatingWebhookConfiguration'), 'webhooks', 0);
      const service = on.find((o) => o.object.kind === 'Service' && o.object.metadata.name === `${PLACEHOLDER}-admission-webhook`)!.object;
      expect(at(webhook, 'clientConfig', 'service')).to.deep.equal({ name: service.metadata.name, namespace: PLACEHOLDER, path: '/validate', port: at(service, 'spec', 'ports', 0, 'port') });
      expect(at(service, 'spec', 'ports', 0)).to.deep.include({ name: 'admission', port: 443, targetPort: 'admission', protocol: 'TCP' });
      expect(at(service, 'spec', 'selector')).to.deep.equal(at(only(on, 'Deployment'), 'spec', 'selector', 'matchLabels'));
      expect(containerOf(on).ports).to.deep.include({ name: 'admission', containerPort: PLACEHOLDER, protocol: 'TCP' });
      expect(chartTemplates().find((t) => t.file === 'deployment.yaml')!.text).to.match(/- name: admission\n\s+containerPort: \{\{ \.Values\.admissionWebhook\.port \}\}/);
    });

    it('enabled: the TLS Secret (required) mounted read-only where --admission-webhook-tls points, and the two flags', () => {
      const container = containerOf(on);
      const flags = container.args.indexOf('--admission-webhook-port');
      expect(container.args.slice(flags)).to.deep.equal(['--admission-webhook-port', PLACEHOLDER, '--admission-webhook-tls', MOUNT]);
      expect(container.volumeMounts).to.deep.include({ name: 'admission-webhook-tls', mountPath: MOUNT, readOnly: true });
      const volume = podOf(on).volumes.find((v) => v.name === 'admission-webhook-tls') as { secret: Record<string, unknown> } | undefined;
      expect(volume?.secret).to.deep.equal({ secretName: PLACEHOLDER, items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }], defaultMode: 288 });
      expect(chartTemplates().find((t) => t.file === 'deployment.yaml')!.text).to.match(/secretName: \{\{ required "admissionWebhook\.tlsSecretName: [^"]+" \.Values\.admissionWebhook\.tlsSecretName \}\}/);
    });

    it('enabled: the Deployment\'s args go through the real `regent serve` option parsing to the webhook on the pod IP', async () => {
      const container = containerOf(on);
      const byFlag: Record<string, unknown> = { '--port': at(values, 'metrics', 'port'), '--monitor-interval': values.monitorIntervalMs, '--admission-webhook-port': at(values, 'admissionWebhook', 'port') };
      const args = container.args.map((a, i) => (a === PLACEHOLDER ? String(byFlag[container.args[i - 1]!]) : a));
      const options = await parseStartArgs(args, { REGENT_STORE: String(values.storeUrl) });
      expect(options.admissionWebhook).to.deep.equal({ host: '0.0.0.0', port: 9443, tlsDir: MOUNT });
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
