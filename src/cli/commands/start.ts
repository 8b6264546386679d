/**
 * `regent serve` (alias `regent start`; `npm start`): the whole control plane on embedded defaults — sqlite event store and
 * embedded resource store under ./data/, the OpenStack simulator on loopback unless a cloud is
 * configured, the example resources on first start, controllers, monitor, status, metrics and the web
 * pages. Ctrl-C stops it cleanly; a restart resumes from the stores without repeating any effect.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { storeUrlOf, type GlobalOptions } from '../context.js';
import { resourcesUrlOf } from './resources.js';
import type { ControlPlaneOptions } from '../../app/control-plane.js';
import { createLogger } from '../../log/logger.js';
import { UsageError } from '../errors.js';
import type { Guard, Route } from '../../app/http-server.js';
import { isLoopback, planListeners, type ListenerPlan } from './listeners.js';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseStoreUrl } from '../../store/open.js';
import type { DemoTokens } from '../../api/auth.js';

export interface StartCommandOptions {
  port: string;
  host: string;
  auditHost?: string;
  auditPort: string;
  auditJwks?: string;
  auditBaseUrl?: string;
  apiHost: string;
  apiPort: string;
  apiJwks?: string;
  api?: boolean;
  auditOnly?: boolean;
  resources?: string;
  /** undefined: the default examples/, applied only to the built-in simulator; a dir: applied anywhere; false: never. */
  examples?: string | false;
  monitorInterval: string;
  /** The admission webhook's HTTPS port (with `admissionWebhookTls`), on `--host`'s address. */
  admissionWebhookPort?: string;
  /** The directory holding the admission webhook's tls.crt and tls.key. */
  admissionWebhookTls?: string;
}

/** The manifests applied on a first start when no `--examples` is given: only ever into the built-in simulator. */
export const DEFAULT_EXAMPLES_DIR = 'examples';

export const controlPlaneOptions = (globals: GlobalOptions, options: StartCommandOptions): Omit<ControlPlaneOptions, 'logger'> => {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${options.port}: expected a port number`);
  const monitorIntervalMs = Number(options.monitorInterval);
  if (!Number.isFinite(monitorIntervalMs) || monitorIntervalMs < 100) throw new UsageError(`--monitor-interval ${options.monitorInterval}: expected milliseconds ≥ 100`);
  if (typeof options.examples === 'string' && !existsSync(options.examples)) throw new UsageError(`--examples ${options.examples}: no such directory`);
  // Examples create servers. Asked for by name they go wherever Regent points; by default only into the
  // simulator Regent starts itself, never into a cloud configured with OS_CLOUD / OS_* (issue 10, item 12).
  const examples =
    options.examples === false
      ? undefined
      : typeof options.examples === 'string'
        ? { dir: options.examples, explicit: true }
        : existsSync(DEFAULT_EXAMPLES_DIR)
          ? { dir: DEFAULT_EXAMPLES_DIR, explicit: false }
          : undefined;
  const admissionWebhook = admissionWebhookOptionsOf(options);
  return { storeUrl: storeUrlOf(globals), resourcesUrl: resourcesUrlOf(options), host: options.host, port, monitorIntervalMs, ...(examples ? { examples } : {}), ...(admissionWebhook ? { admissionWebhook } : {}) };
};

/** The admission webhook's listener (issue 30): both flags or neither; it listens on `--host`'s address. */
export const admissionWebhookOptionsOf = (options: StartCommandOptions): ControlPlaneOptions['admissionWebhook'] => {
  const { admissionWebhookPort: portText, admissionWebhookTls: tlsDir } = options;
  if (portText === undefined && tlsDir === undefined) return undefined;
  if (portText === undefined || tlsDir === undefined) {
    throw new UsageError(`${portText === undefined ? '--admission-webhook-tls' : '--admission-webhook-port'} needs ${portText === undefined ? '--admission-webhook-port <port>' : '--admission-webhook-tls <dir>'}: the admission webhook is served over HTTPS with tls.crt and tls.key from that directory`);
  }
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--admission-webhook-port ${portText}: expected a port number`);
  if (tlsDir === '') throw new UsageError('--admission-webhook-tls: expected a directory holding tls.crt and tls.key');
  return { host: options.host, port, tlsDir };
};

/**
 * The server API's listener and key set: `--api-jwks` in production; on the embedded default a demo key set and
 * a full-access token written next to the store (the signing key lives only in this process).
 */
export const apiOptionsOf = async (globals: GlobalOptions, options: StartCommandOptions): Promise<{ options: NonNullable<ControlPlaneOptions['api']>; demo?: DemoTokens }> => {
  const port = Number(options.apiPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--api-port ${options.apiPort}: expected a port number`);
  if (!isLoopback(options.apiHost) && options.apiJwks === undefined) {
    throw new UsageError(`--api-host ${options.apiHost} exposes the server API: it needs --api-jwks <file|url> (the demo key set is for loopback only)`);
  }
  if (options.apiJwks !== undefined) return { options: { host: options.apiHost, port, auth: { jwks: options.apiJwks } } };
  const location = parseStoreUrl(storeUrlOf(globals));
  const dir = location.kind === 'sqlite' ? join(dirname(location.path), 'api') : join(tmpdir(), `regent-api-${process.pid}`);
  const { writeDemoTokens } = await import('../../api/auth.js');
  const demo = await writeDemoTokens(dir);
  return { options: { host: options.apiHost, port, auth: { jwks: demo.jwksPath } }, demo };
};

/** The listeners of `regent serve` (listeners.ts), from the command's options. */
export const listenerPlanOf = (options: StartCommandOptions): ListenerPlan => {
  const auditPort = Number(options.auditPort);
  if (!Number.isInteger(auditPort) || auditPort < 0 || auditPort > 65535) throw new UsageError(`--audit-port ${options.auditPort}: expected a port number`);
  return planListeners({ host: options.host, port: Number(options.port), ...(options.auditHost !== undefined ? { auditHost: options.auditHost } : {}), auditPort, ...(options.auditJwks !== undefined ? { auditJwks: options.auditJwks } : {}) });
};

export const printWelcome = (url: string, openstack: string, resources: string, store: string, auditUrl = url, api?: { url: string; token?: string; tokenPath?: string }): void => {
  console.log(`Regent is running.
  web UI and audit:   ${auditUrl}/${api ? `\n  server API:         ${api.url}/api/v2/servers   (contract: ${api.url}/openapi.yaml)` : ''}${api?.token ? `\n  API demo token:     ${api.tokenPath}  (full access; README "The server API" has curl examples)\n    ${api.token}` : ''}
  metrics / health:   ${url}/metrics   ${url}/healthz   ${url}/readyz
  OpenStack:          ${openstack}
  resources:          ${resources}
  events:             ${store}

Try it (in another terminal):
  npx regent get servers                       # Available, phase, age
  npx regent get server web-2 -o yaml          # status: conditions, serverID, rebuild marker
  # trigger a rebuild: change web-2's image and apply it again
  sed 's/05556d98-b4f9-47e9-ae0f-df213876b54c/<another image id>/' examples/servers.yaml | npx regent apply -f -
  npx regent streams                           # one stream per decision-making machine
  npx regent history server-rebuild-<serverID> # every step of the rebuild, with its source
Ctrl-C stops Regent; starting it again resumes from ./data without repeating any effect.`);
};

export const registerStart = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('serve')
    .alias('start')
    .description('run the whole control plane on embedded defaults (what `npm start` runs); the audit pages at /')
    .option('--port <port>', 'HTTP port for the web UI, /metrics, /healthz, /readyz', '8080')
    .option('--host <address>', 'HTTP listen address of /metrics, /healthz, /readyz (0.0.0.0 in a container, for probes and scraping); the audit pages share it only on loopback', '127.0.0.1')
    .option('--audit-host <address>', 'serve the audit pages on a listener of their own at this address; not loopback needs --audit-jwks')
    .option('--audit-port <port>', 'the audit listener\'s port (when it is not --port\'s listener)', '8081')
    .option('--api-host <address>', 'the server REST API\'s listen address (not loopback needs --api-jwks)', '127.0.0.1')
    .option('--api-port <port>', 'the server REST API\'s port', '8090')
    .option('--api-jwks <file|url>', 'verify the API\'s bearer tokens against this JWKS (default: a demo key set and token written next to the store)')
    .option('--no-api', 'do not serve the server REST API')
    .option('--audit-base-url <url>', 'the URL users reach the audit pages at (behind an ingress): every status links its resource\'s page there (status.auditURL); default: the audit listener\'s URL')
    .option('--audit-jwks <file|url>', 'require bearer JWTs verified against this JWKS, granting read on region:audit, for every audit page')
    .option('--resources <url>', 'resource source: embedded:<path> (default) | kubernetes[:<context>]')
    .option('--examples <dir>', 'apply these manifests when the resource store is empty, to whatever cloud Regent drives (default: examples/, and only into the built-in simulator)')
    .option('--no-examples', 'never apply example manifests')
    .option('--monitor-interval <ms>', 'Nova monitor poll interval', '3000')
    .option('--audit-only', 'serve only the audit pages over an existing store (no controllers, no OpenStack)')
    .option('--admission-webhook-port <port>', 'serve the validating admission webhook (POST /validate, HTTPS) on this port at --host\'s address: it records who the Kubernetes API server authenticated for each write of Regent\'s kinds; needs --admission-webhook-tls')
    .option('--admission-webhook-tls <dir>', 'the admission webhook\'s certificate: tls.crt and tls.key in this directory (a kubernetes.io/tls Secret\'s mount; a changed pair is reloaded within 10 s)')
    .action(async (options: StartCommandOptions) => {
      if (options.auditOnly) {
        if (!isLoopback(options.host)) throw new UsageError(`--audit-only serves the pages without authentication, so only on loopback (not --host ${options.host}); to expose them run regent serve with --audit-host and --audit-jwks`);
        const port = Number(options.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${options.port}: expected a port number`);
        const { serveAuditPagesOnly } = await import('../../audit/commands.js');
        return serveAuditPagesOnly(globals, options.host, port);
      }
      const logger = createLogger();
      // Loaded on use: the control plane pulls in every layer; other commands should start fast.
      const { startControlPlane } = await import('../../app/control-plane.js');
      const { createAuditRoutes } = await import('../../audit/web/routes.js');
      const { notFoundPage } = await import('../../audit/web/pages.js');
      const { shelfForStoreUrl } = await import('../../audit/history/shelf.js');
      // last: a path nothing else serves gets the audit's 404 page with its links back, not bare text
      const notFound: Route = async (req, res) => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(req.method === 'HEAD' ? undefined : notFoundPage(path, 'no such page', { base: '', assets: 'linked' }));
        return true;
      };
      const listeners = listenerPlanOf(options);
      if (options.auditBaseUrl !== undefined && !/^https?:\/\/\S+$/.test(options.auditBaseUrl)) throw new UsageError(`--audit-base-url ${options.auditBaseUrl}: expected an http(s) URL`);
      let guard: Guard | undefined;
      if (listeners.audit?.jwks !== undefined) {
        const { createAuthenticator } = await import('../../api/auth.js');
        const { bearerGuard } = await import('../../app/bearer-guard.js');
        try {
          guard = bearerGuard(createAuthenticator({ jwks: listeners.audit.jwks }));
        } catch (error) {
          throw new UsageError(`--audit-jwks ${listeners.audit.jwks}: not a readable JWKS (${error instanceof Error ? error.message : String(error)})`);
        }
      }
      // the built-in simulator's kept port, before anything under ./data/ is written (the API's demo token is)
      const location = parseStoreUrl(storeUrlOf(globals()));
      if (location.kind === 'sqlite') {
        const { checkKeptSimulatorPort } = await import('../../app/openstack-target.js');
        await checkKeptSimulatorPort({ simulatorStatePath: join(dirname(location.path), 'simulator.json') });
      }
      const api = options.api === false ? undefined : await apiOptionsOf(globals(), options);
      const plane = await startControlPlane({
        ...controlPlaneOptions(globals(), options),
        ...(api ? { api: api.options } : {}),
        logger,
        routes: ({ store, engine, planner }) => [createAuditRoutes({ store, registry: engine.registry, checkpoints: shelfForStoreUrl(storeUrlOf(globals())), planner }), notFound],
        ...(listeners.audit ? { app: { host: listeners.audit.host, port: listeners.audit.port, ...(guard ? { guard } : {}) } } : {}),
        auditLinks: options.auditBaseUrl !== undefined ? { baseUrl: options.auditBaseUrl } : {},
      });
      logger.info('listening', { operations: plane.url, audit: plane.appUrl ?? plane.url, auditAuthentication: guard ? 'bearer' : 'none (loopback)', ...(plane.admissionWebhookUrl ? { admissionWebhook: plane.admissionWebhookUrl } : {}) });
      printWelcome(plane.url, plane.openstack.description, plane.source.description, plane.store.description, plane.appUrl ?? plane.url, plane.apiUrl ? { url: plane.apiUrl, ...(api?.demo ? { token: api.demo.token, tokenPath: api.demo.tokenPath } : {}) } : undefined);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          logger.info('stopping', { signal });
          resolve();
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
      await plane.stop();
      logger.info('stopped cleanly');
    });
