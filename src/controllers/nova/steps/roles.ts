/**
 * The five workload steps (nova-operator.md, "Pipeline" rows Conductor … Deployment; issue 26), in the order an
 * upgrade rolls them: Conductor, Scheduler, Metadata (Service :8775), ConsoleProxy (Service :6080, removed when
 * disabled), Deployment (the API: Service :8774, PodDisruptionBudget, values.endpoint). Each ensures its role through
 * the runtime's RoleWorkloads (src/nova/workloads/: Deployments on Kubernetes, supervised processes locally) from
 * `roleTemplate(pass, role)`, and sets its one condition:
 *
 *   ConductorReady     True ConductorReady                          False WaitingForConductor
 *   SchedulerReady     True SchedulerReady                          False WaitingForScheduler
 *   MetadataReady      True MetadataReady                           False WaitingForMetadata
 *   ConsoleProxyReady  True ConsoleProxyReady, ConsoleProxyDisabled False WaitingForConsoleProxy
 *   DeploymentReady    True DeploymentReady                         False WaitingForDeployment
 *
 * Outcomes (nova-operator.md, "Pipeline", "Requeue semantics"):
 * - rolled out: True, continue;
 * - still rolling outside an upgrade: False with what is still rolling, and **continue** — "a metadata API
 *   mid-rollout does not keep the API step from running"; the next pass (the lane's own requeue) looks again;
 * - still rolling during an upgrade (pass.upgrading): False, and the lane ends with a 10 s requeue
 *   (RequeueDeploymentPolling), so the roles roll one after another in this order;
 * - no rendered config in this pass: False, no ensure, requeue 30 s (the config wait) — a role is never started
 *   without the config the Config step rendered;
 * - a credential the role carries has no digest in this pass: False, no ensure, requeue 15 s (RequeueSecretPolling):
 *   the template would lose that annotation and roll for nothing ("stamped only while non-empty": a pass that did
 *   not digest a credential rolls nothing);
 * - the port failed (WorkloadError): False with its message, and the lane ends as an error (backoff).
 *
 * What each role carries (ROLE_CREDENTIALS) decides its env and its digest annotations together, so a rotated
 * credential rolls exactly the roles that read it: the metadata shared secret only the metadata API, the nova_api
 * DSN every role but the console proxy (which reads console tokens from the cell database only), the service
 * user's password every role that calls Keystone.
 */
import { CONNECTION_KEY, TRANSPORT_URL_KEY, connectionSecretNames } from '../../../nova/jobs/render.js';
import { METADATA_SHARED_SECRET_KEY, MESSAGING_CA_KEY } from '../../../nova/connection-secrets.js';
import { databaseTlsMount } from '../../../nova/database-tls.js';
import { optionEnv, serviceUserPasswordEnv } from '../../../nova/config/env.js';
import type { DatabaseTlsMount, JobEnv } from '../../../nova/jobs/port.js';
import { ROLE_OVERLAY_FILES, ROLE_PORTS, WorkloadError, runsRoles, type NovaRole, type RoleTemplate, type RoleWorkloads } from '../../../nova/workloads/port.js';
import { withTemplateHash } from '../../../nova/workloads/template-hash.js';
import type { ConditionInput } from '../../../../projections/conditions.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../lane.js';
import { DIGEST_ANNOTATIONS, type NovaLanePass } from '../pass.js';

/** RequeueDeploymentPolling: the rollout wait of every workload step during an upgrade. */
export const DEPLOYMENT_POLLING_MS = 10_000;
/** RequeueDatabaseWait: the config wait. */
export const CONFIG_WAIT_MS = 30_000;
/** RequeueSecretPolling: a credential not digested in this pass. */
export const DIGEST_WAIT_MS = 15_000;

/** A credential a role reads from the environment, and the digest annotation that stands for it. */
export type RoleCredential = 'apiDatabase' | 'cellDatabase' | 'transportURL' | 'serviceUser' | 'metadataSecret';

export const ROLE_CREDENTIALS: Readonly<Record<NovaRole, readonly RoleCredential[]>> = {
  conductor: ['apiDatabase', 'cellDatabase', 'transportURL', 'serviceUser'],
  scheduler: ['apiDatabase', 'cellDatabase', 'transportURL', 'serviceUser'],
  metadata: ['apiDatabase', 'cellDatabase', 'transportURL', 'serviceUser', 'metadataSecret'],
  novncproxy: ['cellDatabase', 'transportURL'],
  api: ['apiDatabase', 'cellDatabase', 'transportURL', 'serviceUser'],
};

const CREDENTIAL_DIGEST: Readonly<Record<RoleCredential, string>> = {
  apiDatabase: DIGEST_ANNOTATIONS.apiDbConnection,
  cellDatabase: DIGEST_ANNOTATIONS.dbConnection,
  transportURL: DIGEST_ANNOTATIONS.transportURL,
  serviceUser: DIGEST_ANNOTATIONS.authtoken,
  metadataSecret: DIGEST_ANNOTATIONS.metadataSecret,
};

/** The credentials the role carries for this Nova: the metadata shared secret only while spec.metadata names one. */
export const carriedCredentials = (pass: Pick<NovaLanePass, 'nova'>, role: NovaRole): RoleCredential[] =>
  ROLE_CREDENTIALS[role].filter((c) => c !== 'metadataSecret' || pass.nova.spec.metadata?.sharedSecretRef !== undefined);

const credentialEnv = (pass: Pick<NovaLanePass, 'nova' | 'ref'>, credential: RoleCredential): JobEnv[] => {
  const secrets = connectionSecretNames(pass.ref.name);
  const { spec } = pass.nova;
  switch (credential) {
    case 'apiDatabase':
      return [{ name: optionEnv('api_database', 'connection'), secretKeyRef: { name: secrets.api, key: CONNECTION_KEY } }];
    case 'cellDatabase':
      return [{ name: optionEnv('database', 'connection'), secretKeyRef: { name: secrets.cell, key: CONNECTION_KEY } }];
    case 'transportURL':
      return [{ name: optionEnv('DEFAULT', 'transport_url'), secretKeyRef: { name: secrets.transport, key: TRANSPORT_URL_KEY } }];
    case 'serviceUser':
      return serviceUserPasswordEnv(spec);
    case 'metadataSecret':
      return [{ name: optionEnv('neutron', 'metadata_proxy_shared_secret'), secretKeyRef: { name: spec.metadata!.sharedSecretRef.name, key: METADATA_SHARED_SECRET_KEY } }];
  }
};

export type RoleTemplateResult = { template: RoleTemplate } | { waiting: string; afterMs: number };

/**
 * The template a role gets in this pass: the image, values.config (and the role's overlay in it), the env of the
 * credentials it carries (Secret keys, never values), their digests as annotations, the TLS files of the database
 * blocks it connects to, the broker CA on a TLS bus, the replicas, its port, and for the API its PDB. Waiting when
 * there is no rendered config or a carried credential has no digest in this pass.
 */
export const roleTemplate = (pass: NovaLanePass, role: NovaRole): RoleTemplateResult => {
  const config = pass.values.config;
  if (config === undefined) return { waiting: 'no rendered config in this pass (the Config step sets it): the role is not started without it', afterMs: CONFIG_WAIT_MS };
  const carried = carriedCredentials(pass, role);
  const annotations: Record<string, string> = {};
  const undigested: string[] = [];
  for (const credential of carried) {
    const digest = pass.values.digests[CREDENTIAL_DIGEST[credential]];
    if (digest === undefined || digest === '') undigested.push(CREDENTIAL_DIGEST[credential]);
    else annotations[CREDENTIAL_DIGEST[credential]] = digest;
  }
  if (undigested.length > 0) return { waiting: `no digest of ${undigested.join(', ')} in this pass: the role is left as it runs rather than rolled without the annotation`, afterMs: DIGEST_WAIT_MS };
  const { spec } = pass.nova;
  const tlsDir = (block: 'api' | 'cell') => pass.deps.jobs.databaseTlsDir(pass.ref.namespace, pass.ref.name, block);
  const databaseTls = (['api', 'cell'] as const)
    .filter((block) => carried.includes(block === 'api' ? 'apiDatabase' : 'cellDatabase'))
    .map((block) => databaseTlsMount(spec, block, tlsDir(block)))
    .filter((m): m is DatabaseTlsMount => m !== undefined);
  const ca = spec.messaging.tls?.enabled === true && spec.messaging.tls.caSecretRef !== undefined && carried.includes('transportURL') ? { secret: spec.messaging.tls.caSecretRef.name, key: MESSAGING_CA_KEY } : undefined;
  const overlay = ROLE_OVERLAY_FILES[role];
  const port = ROLE_PORTS[role];
  return {
    template: withTemplateHash({
      image: spec.image,
      config: { name: config.name, files: config.files },
      ...(overlay in config.files ? { overlay } : {}),
      env: carried.flatMap((c) => credentialEnv(pass, c)),
      annotations,
      ...(databaseTls.length > 0 ? { databaseTls } : {}),
      ...(ca ? { messagingCA: ca } : {}),
      // with spec.autoscaling the API's HPA owns its replica count (steps/hpa.ts); it starts at the minimum
      ...(role === 'api' && spec.autoscaling ? { replicas: spec.autoscaling.minReplicas, autoscaled: true } : { replicas: spec.replicas ?? 1 }),
      ...(port === undefined ? {} : { port }),
      ...(role === 'api' ? { podDisruptionBudget: { maxUnavailable: 1 } } : {}),
    }),
  };
};

/** The runtime's port, which must run roles (the runtimes' adapters do; a read-only double is a wiring bug). */
const workloadsOf = (pass: NovaLanePass): RoleWorkloads => {
  const port = pass.deps.workloads;
  if (!runsRoles(port)) throw new Error('the Nova runtime\'s workload port cannot run roles (it has no ensure): wire a RoleWorkloads adapter (src/nova/workloads/)');
  return port;
};

interface RoleStepSpec {
  name: string;
  role: NovaRole;
  condition: string;
  ready: string;
  waiting: string;
}

const condition = (spec: RoleStepSpec, status: 'True' | 'False', reason: string, message: string): ConditionInput => ({ type: spec.condition, status, reason, message });

const runRole = async (spec: RoleStepSpec, pass: NovaLanePass): Promise<StepReport> => {
  const port = workloadsOf(pass);
  const { namespace, name, uid } = pass.ref;
  const built = roleTemplate(pass, spec.role);
  if ('waiting' in built) return { conditions: [condition(spec, 'False', spec.waiting, built.waiting)], outcome: requeue(built.afterMs, `${spec.condition} ${spec.waiting}: ${built.waiting}`) };
  let rollout;
  try {
    rollout = await port.ensure(namespace, { name, uid }, spec.role, built.template);
    // the Service exists once ensured: HealthCheck probes this address (the Deployment step owns status.endpoint)
    if (spec.role === 'api') {
      const endpoint = await port.endpoint(namespace, name);
      if (endpoint !== undefined) pass.values.endpoint = endpoint;
    }
  } catch (error) {
    if (!(error instanceof WorkloadError)) throw error;
    return { conditions: [condition(spec, 'False', spec.waiting, error.message)], outcome: { kind: 'error', error } };
  }
  if (rollout.rolledOut) return { conditions: [condition(spec, 'True', spec.ready, rollout.detail)], outcome: continueLane };
  const waiting = condition(spec, 'False', spec.waiting, rollout.detail);
  // only an upgrade waits here: it rolls the roles one after another; otherwise the next step runs
  return { conditions: [waiting], outcome: pass.upgrading ? requeue(DEPLOYMENT_POLLING_MS, `${spec.condition} ${spec.waiting} during the upgrade: ${rollout.detail}`) : continueLane };
};

const roleStep = (spec: RoleStepSpec): NovaStep<NovaLanePass> => ({ name: spec.name, conditions: [spec.condition], run: (pass) => runRole(spec, pass) });

export const conductorStep = roleStep({ name: 'Conductor', role: 'conductor', condition: 'ConductorReady', ready: 'ConductorReady', waiting: 'WaitingForConductor' });
export const schedulerStep = roleStep({ name: 'Scheduler', role: 'scheduler', condition: 'SchedulerReady', ready: 'SchedulerReady', waiting: 'WaitingForScheduler' });
export const metadataStep = roleStep({ name: 'Metadata', role: 'metadata', condition: 'MetadataReady', ready: 'MetadataReady', waiting: 'WaitingForMetadata' });
export const deploymentStep = roleStep({ name: 'Deployment', role: 'api', condition: 'DeploymentReady', ready: 'DeploymentReady', waiting: 'WaitingForDeployment' });

const CONSOLE_PROXY: RoleStepSpec = { name: 'ConsoleProxy', role: 'novncproxy', condition: 'ConsoleProxyReady', ready: 'ConsoleProxyReady', waiting: 'WaitingForConsoleProxy' };

/** The console proxy runs only while spec.consoleProxy.enabled is true; otherwise it is removed, and that is a True posture. */
export const consoleProxyStep: NovaStep<NovaLanePass> = {
  name: CONSOLE_PROXY.name,
  conditions: [CONSOLE_PROXY.condition],
  async run(pass) {
    if (pass.nova.spec.consoleProxy?.enabled === true) return runRole(CONSOLE_PROXY, pass);
    try {
      await workloadsOf(pass).remove(pass.ref.namespace, pass.ref.name, 'novncproxy');
    } catch (error) {
      if (!(error instanceof WorkloadError)) throw error;
      return { conditions: [condition(CONSOLE_PROXY, 'False', CONSOLE_PROXY.waiting, `the disabled console proxy could not be removed: ${error.message}`)], outcome: { kind: 'error', error } };
    }
    return { conditions: [condition(CONSOLE_PROXY, 'True', 'ConsoleProxyDisabled', 'spec.consoleProxy.enabled is not true: no console proxy runs (its Deployment and Service are removed); instances are offered no console')], outcome: continueLane };
  },
};

/** The five workload steps, in pipeline (and upgrade) order. */
export const ROLE_STEPS: ReadonlyArray<NovaStep<NovaLanePass>> = [conductorStep, schedulerStep, metadataStep, consoleProxyStep, deploymentStep];
