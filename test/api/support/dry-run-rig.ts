/**
 * The dry-run rig: the plan rig (test/plan/support/rig.ts: the OpenStack simulator on 127.0.0.1 with a manual clock,
 * the embedded resource store and a sqlite event store, Identity `acme` (acme/web, Region `default`) and its Network
 * `net-a` brought up by the real Network pass, the real Server pass) with the server API over those same stores:
 * `api` plans `?dryRun=All` against the simulator (the cloud stands for Region `default`, as the plan rig's),
 * `unplanned` is the same API started without a cloud to plan against. `call` sends real HTTP and checks every
 * answer (status declared, body valid) against openapi.yaml, as test/api/rig.ts does. `logs` is what the API logged.
 */
import { Writable } from 'node:stream';
import winston from 'winston';
import { connect } from '../../../src/openstack/session.js';
import { createTokenIssuer, ENDPOINTS, OPERATIONS, type Acl, type TokenIssuer } from '../../../src/api/auth.js';
import { startApi, type RunningApi } from '../../../src/api/server.js';
import { openApiDocument, responseValidator, SchemaValidators } from '../../../src/api/openapi.js';
import { startPlanRig, type PlanRig } from '../../plan/support/rig.js';

export interface Reply {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface DryRunCall {
  token?: string | null;
  body?: unknown;
  /** Sent as is; not checked against the request schema. */
  raw?: string;
  /** The API without a cloud to plan against. */
  unplanned?: boolean;
  /** Another API (a test's own) to send it to. */
  url?: string;
}

export interface DryRunRig {
  plan: PlanRig;
  api: RunningApi;
  unplanned: RunningApi;
  issuer: TokenIssuer;
  /** Full access everywhere (global ACL), subject `admin`. */
  admin: string;
  token(acl: Acl, sub?: string): Promise<string>;
  call(method: string, path: string, options?: DryRunCall): Promise<Reply>;
  /** The JSON lines the planning API logged. */
  logs: string[];
  /** Real Server passes (the simulator's clock advanced between them) until the Server is ACTIVE in Nova; its Nova id. */
  bringUp(name: string): Promise<string>;
  close(): Promise<void>;
}

const templates = () => Object.keys(openApiDocument().paths).map((t) => ({ template: t, pattern: new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));

export const startDryRunRig = async (): Promise<DryRunRig> => {
  const plan = await startPlanRig();
  const issuer = await createTokenIssuer();
  const logs: string[] = [];
  const logger = winston.createLogger({ level: 'info', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: new Writable({ write: (c: Buffer, _e, done) => (logs.push(c.toString()), done()) }) })] });
  const connectOptions = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };
  const common = { source: plan.source, events: plan.store, auth: { jwks: issuer.jwks }, host: '127.0.0.1', port: 0 } as const;
  const api = await startApi({ ...common, logger, plan: { connect: (c) => connect(c, connectOptions), processRegion: { name: 'default', cloud: plan.cloud, session: plan.os } } });
  const unplanned = await startApi(common);
  const validators = new SchemaValidators();
  const paths = templates();
  const token = (acl: Acl, sub = 'tester') => issuer.sign({ sub, acl });
  const admin = await token({ global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) }, 'admin');

  const call = async (method: string, path: string, o: DryRunCall = {}): Promise<Reply> => {
    const template = paths.find((p) => p.pattern.test(path.split('?')[0] as string))?.template;
    if (!template) throw new Error(`${method} ${path} is not in the contract`);
    if (o.body !== undefined) {
      const v = validators.forRef(`#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`);
      if (!v(o.body)) throw new Error(`the test's request body does not match the contract: ${JSON.stringify(v.errors)}`);
    }
    const headers: Record<string, string> = {};
    const tok = o.token === undefined ? admin : o.token;
    if (tok !== null) headers.authorization = `Bearer ${tok}`;
    const payload = o.raw ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${o.url ?? (o.unplanned ? unplanned : api).url}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await response.text();
    const body = text === '' ? undefined : (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as unknown) : text;
    const validate = responseValidator(validators, template, method, response.status);
    if (validate && !validate(body)) throw new Error(`${method} ${path} answered ${response.status} with a body outside the contract: ${JSON.stringify(validate.errors)} ${text}`);
    return { status: response.status, body, headers: response.headers };
  };

  const bringUp = async (name: string): Promise<string> => {
    for (let i = 0; i < 10; i++) {
      const d = await plan.pass(name);
      plan.sim.clock.advance(1_500);
      const id = await plan.serverId(name);
      if (id && d.kind === 'done') {
        const server = await plan.os.nova.getServer(id);
        if (server.status.kind === 'value' && server.status.value === 'ACTIVE') return id;
      }
    }
    throw new Error(`Server ${name} did not come up`);
  };

  return {
    plan,
    api,
    unplanned,
    issuer,
    admin,
    token,
    call,
    logs,
    bringUp,
    close: async () => {
      await api.close();
      await unplanned.close();
      await plan.close();
    },
  };
};
