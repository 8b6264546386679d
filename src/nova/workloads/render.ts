/**
 * The Kubernetes objects of a Nova role, rendered from its RoleTemplate (pure): the Deployment `{nova}-{role}`, its
 * Service (the API 8774, metadata 8775, the console proxy 6080) and the API's PodDisruptionBudget `{nova}-api`
 * (nova-operator.md, "Pipeline").
 *
 * - Secrets reach the container as env `valueFrom.secretKeyRef` only; the pod template names a Secret key, never a
 *   value, and carries the rotation digests as annotations, so a rotated credential rolls exactly the Deployments
 *   whose template carries its digest.
 * - The pod-template hash is an annotation on the Deployment and on its pod template (`nova.c5c3.io/pod-template-hash`,
 *   the Jobs' annotation): the adapter compares the Deployment's with the template's to decide whether to replace it.
 * - The config: the content-addressed ConfigMap `config.name` mounted read-only at /etc/nova; the container runs the
 *   role's console script with `--config-file /etc/nova/nova.conf` and then its overlay.
 * - On a TLS bus the broker CA bundle is mounted at /etc/nova-messaging-tls/ca.crt, the path the rendered config's
 *   [oslo_messaging_rabbit] ssl_ca_file names (src/nova/config/settings.ts): a public certificate, mode 0444.
 * - fsGroup 42424 (the openstack group of the service images: nova-operator.md, "DBArchive", "like the long-lived
 *   workloads"), so a database TLS client key projected at 0400 is readable by the openstack user.
 * - Readiness: the API and the metadata API answer GET / (the version document, no token); the console proxy's port
 *   accepts a connection; the conductor and the scheduler have no port to probe (a Deployment without a readiness
 *   probe counts a started container as ready).
 */
import type { V1Deployment, V1EnvVar, V1PodDisruptionBudget, V1Probe, V1Service, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { OPENSTACK_GID } from '../database-tls.js';
import { MESSAGING_CA_DIR, MESSAGING_CA_KEY } from '../config/settings.js';
import { TEMPLATE_HASH_ANNOTATION } from '../jobs/template-hash.js';
import type { DatabaseTlsMount, JobEnv } from '../jobs/port.js';
import { INSTALLED_RELEASE_ANNOTATION, deploymentName, type NovaOwner, type NovaRole, type RoleTemplate } from './port.js';

export { TEMPLATE_HASH_ANNOTATION };
export const CONFIG_MOUNT_PATH = '/etc/nova';
const CONFIG_VOLUME = 'nova-config';
const MESSAGING_CA_VOLUME = 'messaging-ca';
const NOVA_API_VERSION = 'regent.dev/v1alpha1';
const DATABASE_TLS_MODE = 0o400;

/** The console script each role's container runs (nova's setup.cfg entry points). */
export const ROLE_COMMANDS: Readonly<Record<NovaRole, string>> = {
  conductor: 'nova-conductor',
  scheduler: 'nova-scheduler',
  metadata: 'nova-api-metadata',
  novncproxy: 'nova-novncproxy',
  // the compute API alone: nova-api would also start the metadata API unless enabled_apis says otherwise
  api: 'nova-api-os-compute',
};

/** The container a role's image is read from: `nova-<role>`. */
export const novaContainerName = (role: NovaRole): string => `nova-${role}`;

/** What selects a role's pods (the Deployment's selector, the Service's, the PDB's). */
export const selectorLabels = (nova: string, role: NovaRole): Record<string, string> => ({ 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': nova, 'app.kubernetes.io/component': role });
const labels = (nova: string, role: NovaRole): Record<string, string> => ({ ...selectorLabels(nova, role), 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/nova': nova });

/** The Nova's controller owner reference, on every object Regent writes for it (the roles', the parallel group's). */
export const ownerReference = (nova: NovaOwner) => ({ apiVersion: NOVA_API_VERSION, kind: 'Nova', name: nova.name, uid: nova.uid, controller: true, blockOwnerDeletion: true });

const envVar = (env: JobEnv): V1EnvVar => ('secretKeyRef' in env ? { name: env.name, valueFrom: { secretKeyRef: { name: env.secretKeyRef.name, key: env.secretKeyRef.key } } } : { name: env.name, value: env.value });

const tlsVolumeName = (mount: DatabaseTlsMount): string => `db-tls-${mount.block}`;
const tlsVolume = (mount: DatabaseTlsMount): V1Volume => {
  const bySecret = new Map<string, Array<{ key: string; path: string }>>();
  for (const f of mount.files) bySecret.set(f.secret, [...(bySecret.get(f.secret) ?? []), { key: f.key, path: f.path }]);
  return { name: tlsVolumeName(mount), projected: { defaultMode: DATABASE_TLS_MODE, sources: [...bySecret].map(([name, items]) => ({ secret: { name, items } })) } };
};

const readinessProbe = (role: NovaRole, port: number | undefined): V1Probe | undefined => {
  if (port === undefined) return undefined;
  if (role === 'novncproxy') return { tcpSocket: { port }, periodSeconds: 10 };
  return { httpGet: { path: '/', port }, periodSeconds: 10, timeoutSeconds: 5 };
};

/** The command line: the console script, nova.conf, then the overlay when the config carries one. */
export const roleCommand = (role: NovaRole, template: Pick<RoleTemplate, 'overlay'>): string[] => [
  ROLE_COMMANDS[role],
  '--config-file',
  `${CONFIG_MOUNT_PATH}/nova.conf`,
  ...(template.overlay ? ['--config-file', `${CONFIG_MOUNT_PATH}/${template.overlay}`] : []),
];

/**
 * The Deployment. `carried` are pod-template annotations of the live Deployment that Regent writes elsewhere and a
 * replace must keep: the installed-release stamp (dropping it would roll the role once more for nothing).
 */
export const deploymentBody = (namespace: string, nova: NovaOwner, role: NovaRole, template: RoleTemplate, carried: Readonly<Record<string, string>> = {}): V1Deployment => {
  const tls = template.databaseTls ?? [];
  const ca = template.messagingCA;
  const mounts: V1VolumeMount[] = [
    { name: CONFIG_VOLUME, mountPath: CONFIG_MOUNT_PATH, readOnly: true },
    ...tls.map((m) => ({ name: tlsVolumeName(m), mountPath: m.dir, readOnly: true })),
    ...(ca ? [{ name: MESSAGING_CA_VOLUME, mountPath: MESSAGING_CA_DIR, readOnly: true }] : []),
  ];
  const caVolume: V1Volume[] = ca ? [{ name: MESSAGING_CA_VOLUME, secret: { secretName: ca.secret, items: [{ key: ca.key, path: MESSAGING_CA_KEY }], defaultMode: 0o444 } }] : [];
  const probe = readinessProbe(role, template.port);
  const stamp = carried[INSTALLED_RELEASE_ANNOTATION];
  const kept: Record<string, string> = stamp === undefined ? {} : { [INSTALLED_RELEASE_ANNOTATION]: stamp };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: deploymentName(nova.name, role), namespace, labels: labels(nova.name, role), annotations: { [TEMPLATE_HASH_ANNOTATION]: template.templateHash }, ownerReferences: [ownerReference(nova)] },
    spec: {
      replicas: template.replicas,
      selector: { matchLabels: selectorLabels(nova.name, role) },
      template: {
        metadata: { labels: labels(nova.name, role), annotations: { ...template.annotations, ...kept, [TEMPLATE_HASH_ANNOTATION]: template.templateHash } },
        spec: {
          securityContext: { fsGroup: OPENSTACK_GID },
          containers: [
            {
              name: novaContainerName(role),
              image: template.image,
              command: roleCommand(role, template),
              env: template.env.map(envVar),
              ...(template.port === undefined ? {} : { ports: [{ name: role === 'novncproxy' ? 'novnc' : 'http', containerPort: template.port, protocol: 'TCP' }] }),
              ...(probe ? { readinessProbe: probe } : {}),
              volumeMounts: mounts,
            },
          ],
          volumes: [{ name: CONFIG_VOLUME, configMap: { name: template.config.name } }, ...tls.map(tlsVolume), ...caVolume],
        },
      },
    },
  };
};

/** The role's Service on its port (ClusterIP). */
export const serviceBody = (namespace: string, nova: NovaOwner, role: NovaRole, port: number): V1Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: deploymentName(nova.name, role), namespace, labels: labels(nova.name, role), ownerReferences: [ownerReference(nova)] },
  spec: { type: 'ClusterIP', selector: selectorLabels(nova.name, role), ports: [{ name: role === 'novncproxy' ? 'novnc' : 'http', port, targetPort: port, protocol: 'TCP' }] },
});

/** The API's PodDisruptionBudget: a drain takes at most `maxUnavailable` API pods at once. */
export const podDisruptionBudgetBody = (namespace: string, nova: NovaOwner, role: NovaRole, maxUnavailable: number): V1PodDisruptionBudget => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: deploymentName(nova.name, role), namespace, labels: labels(nova.name, role), ownerReferences: [ownerReference(nova)] },
  spec: { maxUnavailable, selector: { matchLabels: selectorLabels(nova.name, role) } },
});

/** The content-addressed config, immutable (created only when absent; the Config step may have created it already). */
export const configMapBody = (namespace: string, nova: NovaOwner, template: RoleTemplate) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: template.config.name, namespace, labels: { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/nova': nova.name }, ownerReferences: [ownerReference(nova)] },
  immutable: true,
  data: { ...template.config.files },
});

/** The API's cluster-local URL from its Service's name and port. */
export const serviceURL = (namespace: string, service: string, port: number): string => `http://${service}.${namespace}.svc:${port}`;
