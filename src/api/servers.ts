/**
 * The server handlers, v2 and v1, over a ResourceSource. Order of checks on every route: the token
 * (401), the body against the OpenAPI schema (400, naming the field), the object's visibility (404:
 * absent, in a tenancy the caller may not read, or not of this API version — the same answer), the
 * operation's permission (403), then the rules (422) and the store's answer (409 on a collision or a
 * concurrent change). Nothing is written before every check passed; each accepted write is audited.
 * A dry run (`?dryRun=All`, ./dry-run.ts) passes the same checks, then answers the plan of the write instead of
 * making it: nothing stored, no audit event (nothing changed), one log line saying who asked.
 */
import { stampAuthor, type AuthorStamp } from '../resource-history/author.js';
import { v4 as uuidv4 } from 'uuid';
import type { ResourceSource } from '../kube/port.js';
import { AlreadyExists, Conflict, Invalid, NotFound } from '../kube/errors.js';
import { API_VERSION } from '../resources/kind.js';
import type { InputOf } from '../resources/index.js';
import { resolveSshInjection, ServerKind, type Server, type ServerSpec } from '../resources/server.js';
import type { Network } from '../resources/network.js';
import type { Identity } from '../resources/identity.js';
import type { EventStore } from '../store/port.js';
import { allowed, allowedInOrganization, ENDPOINTS, type Principal } from './auth.js';
import { appendAudit, digest, type AuditAction } from './audit.js';
import { conflict, forbidden, notFound, notImplemented, unprocessable } from './errors.js';
import { userDataProblem } from './user-data.js';
import { checkSecurityGroupScope } from './security-group-scope.js';
import { checkSshCertificateAuthorityScope } from './ssh-ca-scope.js';
import { runVerb, VerbRefused, type ServerCompute, type Verb } from './verbs.js';
import { identitySecretName, SECRET_KEYS } from '../provider/identity/names.js';
import { identityKeypairName } from '../provider/identity/keypair.js';
import type { Logger } from '../log/logger.js';
import { DryRun, type DryRunAnswer, type DryRunPlan, type DryRunPlanning } from './dry-run.js';
import { apiVersionOf, LABELS, sameFlavor, sameImage, serverResourceName, tenancyOf, toV1Read, toV2Read, type Tenancy } from './model.js';

/** Image (and flavor) checks through the provider; absent: not checked (docs/api.md). */
export interface ImageValidator {
  /**
   * Resolves when the image may be used with the flavor; throws an ApiError (422) otherwise. On
   * `update`, a flavor the region no longer offers is tolerated and the flavor-dependent checks skipped.
   */
  validate(input: { mode: 'create' | 'update'; imageId: string; flavorId: string; tenancy: Tenancy; network: Network }): Promise<void>;
}

export interface ServerServiceDeps {
  readonly source: ResourceSource;
  readonly events: EventStore;
  /** The namespace whose Networks, Identities and Servers the API serves. Default `default`. */
  readonly namespace?: string;
  readonly images?: ImageValidator;
  /** Nova for the operational verbs; absent: the verbs answer 501 after their 404/403 checks. */
  readonly compute?: ServerCompute;
  /**
   * Where the Identities' Secrets live (their keypair's private key, for sshkey): Regent's own namespace on
   * Kubernetes (RegionConnections.secretNamespaceFor); default the namespace the API serves.
   */
  readonly secretNamespace?: string;
  /** The cloud a dry run plans against (`regent serve` gives it); absent: `?dryRun=All` answers 501 after every check. */
  readonly plan?: DryRunPlanning;
  readonly logger?: Logger;
  readonly now?: () => Date;
}

/** How a create or update is carried out: written (and audited), or only planned (`?dryRun=All`). */
export interface WriteOptions {
  readonly dryRun?: boolean;
}

/** What the write stored, or, on a dry run, what it would store and the plan of it. */
type Written = { server: Server; plan?: undefined } | { server: Server; plan: DryRunPlan };

export interface RequestContext {
  readonly principal: Principal;
  readonly requestId: string;
}

export interface V2Write {
  metadata: { name: string };
  spec: {
    networkId: string;
    flavorId: string;
    imageId: string;
    userData?: string;
    sshInjection?: 'ca' | 'identityKeypair' | 'none';
    sshCertificateAuthorityId?: string;
    securityGroups?: string[];
    infrastructureRef?: { host: string; resourceProviderID?: string };
    providerCreateGates?: { name: string; description?: string }[];
  };
}

export interface V1Write {
  metadata: { name: string };
  spec: { networkId: string; flavorId: string; imageId: string; userData?: string; securityGroups?: string[] };
}

const invalidMessage = (error: Invalid): string =>
  error.causes.length > 0 ? error.causes.map((c) => `${c.path}: ${c.message}`).join('; ') : error.message;

export class ServerService {
  private readonly namespace: string;
  private readonly now: () => Date;
  private readonly dryRun: DryRun;

  constructor(private readonly deps: ServerServiceDeps) {
    this.namespace = deps.namespace ?? 'default';
    this.now = deps.now ?? (() => new Date());
    this.dryRun = new DryRun({ source: deps.source, events: deps.events, now: this.now, ...(deps.plan ? { planning: deps.plan } : {}) });
  }

  // ---- shared ---------------------------------------------------------------------------------

  /** The Network and its tenancy, when the caller may see the network; otherwise one 422 for absent and invisible. */
  private async networkFor(ctx: RequestContext, networkId: string, endpoint: string): Promise<{ network: Network; tenancy: Tenancy }> {
    const missing = () => unprocessable(`spec.networkId: network "${networkId}" not found`);
    const network = await this.deps.source.get('Network', this.namespace, networkId);
    if (!network || network.metadata.deletionTimestamp) throw missing();
    const identity = (await this.deps.source.get('Identity', this.namespace, network.spec.identityRef.name)) as Identity | undefined;
    if (!identity) throw missing();
    const tenancy = { organizationId: identity.spec.organizationID, projectId: identity.spec.projectID, identityId: identity.metadata.name };
    if (!allowed(ctx.principal, endpoint, 'read', tenancy.organizationId, tenancy.projectId)) throw missing();
    return { network, tenancy };
  }

  /** A server the caller may read through this API version, else 404 (never saying why). */
  private async visible(ctx: RequestContext, id: string, version: '1' | '2', endpoint: string): Promise<{ server: Server; tenancy: Tenancy }> {
    const gone = () => notFound(`server "${id}" not found`);
    const server = (await this.deps.source.get('Server', this.namespace, id)) as Server | undefined;
    if (!server || apiVersionOf(server) !== version) throw gone();
    const tenancy = tenancyOf(server);
    if (!tenancy || !allowed(ctx.principal, endpoint, 'read', tenancy.organizationId, tenancy.projectId)) throw gone();
    return { server, tenancy };
  }

  private async audit(ctx: RequestContext, action: AuditAction, apiVersion: 1 | 2, server: Server, tenancy: Tenancy, details?: Record<string, unknown>): Promise<void> {
    await appendAudit(this.deps.events, {
      action,
      actor: ctx.principal.subject,
      requestId: ctx.requestId,
      apiVersion,
      server: { uid: server.metadata.uid, namespace: server.metadata.namespace, name: server.metadata.name, serverName: server.spec.name, organizationId: tenancy.organizationId, projectId: tenancy.projectId },
      ...(details ? { details } : {}),
      at: this.now().toISOString(),
    });
  }

  private checked(input: unknown, old?: Server) {
    const result = ServerKind.validate(input, old);
    if (!result.ok) throw unprocessable(result.errors.map((e) => `${e.path}: ${e.message}`).join('; '));
    return result.value;
  }

  /** userData against cloud-init's formats; with an SSH CA (the create's, or on update the server's current one) no gzip. */
  private checkUserData(userData: string | undefined, spec: ServerSpec): void {
    if (userData === undefined) return;
    const problem = userDataProblem(userData, { sshCertificateAuthority: resolveSshInjection(spec) === 'ca' });
    if (problem) throw unprocessable(problem);
  }

  /** Who the change is by (src/resource-history/author.ts): the token's subject, and the request its api-server- event names. */
  private stamp(ctx: RequestContext): AuthorStamp {
    return { name: ctx.principal.subject.slice(0, 253), channel: 'api', requestId: ctx.requestId };
  }

  /**
   * The one store write of a create — or, on a dry run, the store's same checks (its answers mapped the same way),
   * then the plan of the object instead of the write.
   */
  private async createObject(ctx: RequestContext, input: unknown, options: WriteOptions = {}): Promise<Written> {
    const stamped = stampAuthor(input as InputOf<'Server'>, this.stamp(ctx));
    try {
      if (!options.dryRun) return { server: (await this.deps.source.create(stamped)) as Server };
      const server = await this.dryRun.wouldCreate(stamped);
      return { server, plan: await this.dryRun.planOf(stamped, this.where(ctx)) };
    } catch (error) {
      if (error instanceof AlreadyExists) throw conflict('a server with this name already exists on this network');
      if (error instanceof Invalid) throw unprocessable(invalidMessage(error));
      throw error;
    }
  }

  /** The one store write of an update, or on a dry run its checks and the plan (as createObject). */
  private async updateObject(ctx: RequestContext, input: unknown, options: WriteOptions = {}): Promise<Written> {
    const stamped = stampAuthor(input as InputOf<'Server'>, this.stamp(ctx));
    try {
      if (!options.dryRun) return { server: (await this.deps.source.update(stamped)) as Server };
      const server = await this.dryRun.wouldUpdate(stamped);
      return { server, plan: await this.dryRun.planOf(stamped, this.where(ctx)) };
    } catch (error) {
      if (error instanceof Conflict) throw conflict('the server changed during the request; read it again and retry');
      if (error instanceof NotFound) throw notFound('server not found');
      if (error instanceof Invalid) throw unprocessable(invalidMessage(error));
      throw error;
    }
  }

  /** Where a dry run's document comes from, as the plan names it: the request (its id is x-request-id). */
  private where(ctx: RequestContext): string {
    return `request ${ctx.requestId}`;
  }

  /**
   * A dry run's answer: the view the object would have and its plan. Not audited (nothing changed); logged, with the
   * actor and the request id, as a plan reads the cloud with the server's credentials.
   */
  private planned<View>(ctx: RequestContext, action: 'create' | 'update', apiVersion: 1 | 2, written: { server: Server; plan: DryRunPlan }, view: (server: Server) => View): DryRunAnswer<View> {
    const { server, plan } = written;
    this.deps.logger?.info('API dry run: planned, nothing stored', {
      requestId: ctx.requestId,
      actor: ctx.principal.subject,
      action,
      apiVersion,
      server: `${server.metadata.namespace}/${server.metadata.name}`,
      serverName: server.spec.name,
      verdict: plan.verdict,
      decisions: plan.decisions.length,
      destructive: plan.destructive,
    });
    return { dryRun: true, server: view(server), plan };
  }

  private async deleteObject(ctx: RequestContext, server: Server, tenancy: Tenancy, apiVersion: 1 | 2): Promise<void> {
    try {
      await this.deps.source.delete('Server', server.metadata.namespace, server.metadata.name, { resourceVersion: server.metadata.resourceVersion, author: this.stamp(ctx) });
    } catch (error) {
      if (error instanceof NotFound) throw notFound(`server "${server.metadata.name}" not found`);
      if (error instanceof Conflict) throw conflict('the server changed during the request; read it again and retry');
      throw error;
    }
    await this.audit(ctx, 'deleted', apiVersion, server, tenancy);
  }

  private replacement(old: Server, spec: ServerSpec) {
    return {
      apiVersion: API_VERSION,
      kind: 'Server' as const,
      metadata: {
        name: old.metadata.name,
        namespace: old.metadata.namespace,
        resourceVersion: old.metadata.resourceVersion,
        ...(old.metadata.labels ? { labels: { ...old.metadata.labels } } : {}),
        ...(old.metadata.annotations ? { annotations: { ...old.metadata.annotations } } : {}),
        ...(old.metadata.finalizers ? { finalizers: [...old.metadata.finalizers] } : {}),
        ...(old.metadata.ownerReferences ? { ownerReferences: old.metadata.ownerReferences.map((r) => ({ ...r })) } : {}),
      },
      spec,
    };
  }

  // ---- v2 --------------------------------------------------------------------------------------

  async createV2(ctx: RequestContext, body: V2Write, options: WriteOptions = {}) {
    const { network, tenancy } = await this.networkFor(ctx, body.spec.networkId, ENDPOINTS.networksV2);
    if (!allowed(ctx.principal, ENDPOINTS.serversV2, 'create', tenancy.organizationId, tenancy.projectId)) throw forbidden('not allowed to create servers in this project');
    const s = body.spec;
    const spec = {
      name: body.metadata.name,
      image: { id: s.imageId },
      flavor: { id: s.flavorId },
      networkID: network.metadata.name,
      ...(s.userData !== undefined ? { userData: s.userData } : {}),
      ...(s.sshInjection !== undefined ? { sshInjection: s.sshInjection } : {}),
      ...(s.sshCertificateAuthorityId !== undefined ? { sshCertificateAuthorityId: s.sshCertificateAuthorityId } : {}),
      ...(s.securityGroups !== undefined ? { securityGroups: s.securityGroups } : {}),
      ...(s.infrastructureRef !== undefined ? { infrastructureRef: s.infrastructureRef } : {}),
      ...(s.providerCreateGates !== undefined ? { providerCreateGates: s.providerCreateGates } : {}),
    };
    const object = this.checked({
      apiVersion: API_VERSION,
      kind: 'Server',
      metadata: {
        name: serverResourceName(network.metadata.name, body.metadata.name),
        namespace: network.metadata.namespace,
        labels: {
          [LABELS.apiVersion]: '2',
          [LABELS.organization]: tenancy.organizationId,
          [LABELS.project]: tenancy.projectId,
          [LABELS.identity]: tenancy.identityId,
          [LABELS.network]: network.metadata.name,
        },
        ownerReferences: [{ apiVersion: API_VERSION, kind: 'Network', name: network.metadata.name, uid: network.metadata.uid, blockOwnerDeletion: true }],
      },
      spec,
    });
    await checkSecurityGroupScope(this.deps.source, { namespace: object.metadata.namespace ?? this.namespace, networkID: object.spec.networkID, securityGroups: object.spec.securityGroups });
    this.checkUserData(s.userData, object.spec);
    await checkSshCertificateAuthorityScope(this.deps.source, this.namespace, object.spec, tenancy);
    if (this.deps.images) await this.deps.images.validate({ mode: 'create', imageId: s.imageId, flavorId: s.flavorId, tenancy, network });
    const written = await this.createObject(ctx, object, options);
    if (written.plan) return this.planned(ctx, 'create', 2, written, toV2Read);
    const created = written.server;
    await this.audit(ctx, 'created', 2, created, tenancy, { imageId: s.imageId, flavorId: s.flavorId, networkId: network.metadata.name, userData: digest(s.userData) });
    return toV2Read(created);
  }

  async listV2(ctx: RequestContext, filter: { organizationID?: string; projectID?: string; networkID?: string }) {
    const { items } = await this.deps.source.list('Server', this.namespace);
    return (items as Server[])
      .filter((server) => apiVersionOf(server) === '2')
      .filter((server) => {
        const t = tenancyOf(server);
        if (!t || !allowed(ctx.principal, ENDPOINTS.serversV2, 'read', t.organizationId, t.projectId)) return false;
        if (filter.organizationID !== undefined && t.organizationId !== filter.organizationID) return false;
        if (filter.projectID !== undefined && t.projectId !== filter.projectID) return false;
        return filter.networkID === undefined || server.spec.networkID === filter.networkID;
      })
      .sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0))
      .map(toV2Read);
  }

  async getV2(ctx: RequestContext, id: string) {
    return toV2Read((await this.visible(ctx, id, '2', ENDPOINTS.serversV2)).server);
  }

  async updateV2(ctx: RequestContext, id: string, body: V2Write, options: WriteOptions = {}) {
    const { server: old, tenancy } = await this.visible(ctx, id, '2', ENDPOINTS.serversV2);
    if (!allowed(ctx.principal, ENDPOINTS.serversV2, 'update', tenancy.organizationId, tenancy.projectId)) throw forbidden('not allowed to update this server');
    const s = body.spec;
    if (body.metadata.name !== old.spec.name) throw unprocessable(`metadata.name: server names are immutable (is "${old.spec.name}")`);
    if (!sameFlavor(old.spec.flavor, s.flavorId)) throw unprocessable('spec.flavorId: flavor changes are not supported (resizes are not an update)');
    if (s.networkId !== old.spec.networkID) throw unprocessable('spec.networkId: a server cannot move to another network');
    const imageChanged = !sameImage(old.spec.image, s.imageId);
    // Create-time inputs (infrastructureRef, providerCreateGates, the SSH mode and CA) are preserved;
    // userData and securityGroups are replaced wholesale (omitted clears them).
    const { userData: _u, securityGroups: _g, ...kept } = old.spec;
    const spec: ServerSpec = {
      ...kept,
      image: imageChanged ? { id: s.imageId } : old.spec.image,
      ...(s.userData !== undefined ? { userData: s.userData } : {}),
      ...(s.securityGroups !== undefined ? { securityGroups: s.securityGroups } : {}),
    };
    const object = this.checked(this.replacement(old, spec), old);
    await checkSecurityGroupScope(this.deps.source, { namespace: old.metadata.namespace ?? this.namespace, networkID: old.spec.networkID, securityGroups: spec.securityGroups });
    if (s.userData !== old.spec.userData) this.checkUserData(s.userData, old.spec);
    if (imageChanged && this.deps.images) {
      const network = await this.deps.source.get('Network', this.namespace, old.spec.networkID);
      if (network) await this.deps.images.validate({ mode: 'update', imageId: s.imageId, flavorId: s.flavorId, tenancy, network });
    }
    const written = await this.updateObject(ctx, object, options);
    if (written.plan) return this.planned(ctx, 'update', 2, written, toV2Read);
    const updated = written.server;
    await this.audit(ctx, 'updated', 2, updated, tenancy, {
      ...(imageChanged ? { imageId: { from: old.spec.image.id ?? old.spec.image.name, to: s.imageId }, rebuild: true } : {}),
      userData: digest(s.userData),
    });
    return toV2Read(updated);
  }

  async deleteV2(ctx: RequestContext, id: string): Promise<void> {
    const { server, tenancy } = await this.visible(ctx, id, '2', ENDPOINTS.serversV2);
    if (!allowed(ctx.principal, ENDPOINTS.serversV2, 'delete', tenancy.organizationId, tenancy.projectId)) throw forbidden('not allowed to delete this server');
    await this.deleteObject(ctx, server, tenancy, 2);
  }

  /** For verbs not built yet: the same 404/403 as a built one, then 501. */
  async verbV2(ctx: RequestContext, id: string, endpoint: string, operation: 'read' | 'update' | 'create'): Promise<{ server: Server; tenancy: Tenancy }> {
    const found = await this.visible(ctx, id, '2', ENDPOINTS.serversV2);
    if (!allowed(ctx.principal, endpoint, operation, found.tenancy.organizationId, found.tenancy.projectId)) throw forbidden('not allowed to perform this operation on this server');
    return found;
  }

  /**
   * The identity's SSH private key (server-api.md: "only returns the identity private key for servers where
   * Region requested identityKeypair SSH injection during create. It returns not found for ca and none
   * servers"): the server must be visible (404) and the caller allowed to read it (403); a ca or none server,
   * or an identity whose keypair is not stored yet, is 404. Every key handed out is audited with its actor
   * and the keypair's name — never the key.
   */
  async sshKeyV2(ctx: RequestContext, id: string): Promise<{ privateKey: string }> {
    const { server, tenancy } = await this.verbV2(ctx, id, ENDPOINTS.serversV2, 'read');
    const mode = resolveSshInjection(server.spec);
    if (mode !== 'identityKeypair') throw notFound(`server "${id}" has no identity SSH key: its sshInjection is ${mode}`);
    const identity = (await this.deps.source.get('Identity', server.metadata.namespace ?? this.namespace, tenancy.identityId)) as Identity | undefined;
    const secret = identity ? await this.deps.source.secrets.get(this.deps.secretNamespace ?? identity.metadata.namespace ?? this.namespace, identitySecretName(identity.metadata.uid)) : undefined;
    const privateKey = secret?.data[SECRET_KEYS.sshPrivateKey];
    if (!identity || !privateKey) throw notFound(`server "${id}": the SSH key of its identity "${tenancy.identityId}" is not stored yet (the Identity has not imported its keypair)`);
    await this.audit(ctx, 'sshkey', 2, server, tenancy, { keypair: identityKeypairName(identity.metadata.uid), identity: tenancy.identityId });
    return { privateKey };
  }

  /**
   * An internal service satisfies one provider-create gate: needs server read (else 404) and
   * `region:servers:v2/provider-create-gates` update (else 403). Records the authenticated actor, reason
   * and message on the status subresource (status.providerCreateGates, status.remainingProviderCreateGates).
   * A gate the server does not declare → 422; one already satisfied → 200, the first record kept.
   */
  async satisfyGateV2(ctx: RequestContext, id: string, body: { name: string; reason: string; message?: string }) {
    const { server, tenancy } = await this.verbV2(ctx, id, ENDPOINTS.providerCreateGates, 'update');
    const declared = (server.spec.providerCreateGates ?? []).map((g) => g.name);
    if (!declared.includes(body.name)) throw unprocessable(`name: the server declares no provider-create gate "${body.name}"${declared.length > 0 ? ` (it declares ${declared.join(', ')})` : ''}`);
    const records = [...(server.status?.providerCreateGates ?? [])];
    if (records.some((g) => g.name === body.name && g.satisfied)) return toV2Read(server);
    const record = {
      name: body.name,
      satisfied: true,
      actor: ctx.principal.subject.slice(0, 253),
      reason: body.reason,
      ...(body.message !== undefined ? { message: body.message } : {}),
      satisfiedAt: this.now().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    const next = [...records.filter((g) => g.name !== body.name), record];
    const satisfied = new Set(next.filter((g) => g.satisfied).map((g) => g.name));
    let updated: Server;
    try {
      updated = (await this.deps.source.patchStatus('Server', server.metadata.namespace, server.metadata.name, { providerCreateGates: next, remainingProviderCreateGates: declared.filter((n) => !satisfied.has(n)) }, { resourceVersion: server.metadata.resourceVersion })) as Server;
    } catch (error) {
      if (error instanceof Conflict) throw conflict('the server changed during the request; retry');
      if (error instanceof NotFound) throw notFound(`server "${id}" not found`);
      if (error instanceof Invalid) throw unprocessable(invalidMessage(error));
      throw error;
    }
    await this.audit(ctx, 'gateSatisfied', 2, updated, tenancy, { gate: body.name, reason: body.reason, ...(body.message !== undefined ? { message: body.message } : {}) });
    return toV2Read(updated);
  }

  /**
   * A power or console verb: the server must be visible (404) and the caller allowed (`update` on
   * region:servers:v2 for power verbs and the console session, `read` for the console output; 403).
   * Each verb Nova was asked is recorded with its actor and Nova's answer.
   */
  async verb(ctx: RequestContext, id: string, verb: Verb, options: { length?: number } = {}): Promise<unknown> {
    const operation = verb === 'consoleoutput' ? 'read' : 'update';
    const { server, tenancy } = await this.verbV2(ctx, id, ENDPOINTS.serversV2, operation);
    if (!this.deps.compute) throw notImplemented(`${verb} needs a compute connection, which this API was started without`);
    try {
      const { result, answer } = await runVerb(this.deps.compute, server, verb, options);
      await this.audit(ctx, verb, 2, server, tenancy, { verb, ...answer });
      return result;
    } catch (error) {
      if (!(error instanceof VerbRefused)) throw error;
      await this.audit(ctx, verb, 2, server, tenancy, { verb, ...error.answer });
      throw error.apiError ?? error.cause ?? error;
    }
  }

  /**
   * Snapshot: the caller must see the server (404) and may create images in its organization
   * (`region:images` create, organization-wide or global; 403). Nova's createImage makes the image; it
   * carries its provenance (`regent.dev:source-server-id`) and the server's organization and project;
   * the audit event records source server and image.
   */
  async snapshot(ctx: RequestContext, id: string, name: string): Promise<unknown> {
    const { server, tenancy } = await this.visible(ctx, id, '2', ENDPOINTS.serversV2);
    if (!allowedInOrganization(ctx.principal, ENDPOINTS.images, 'create', tenancy.organizationId)) throw forbidden('not allowed to create images in this organization');
    if (!this.deps.compute) throw notImplemented('snapshot needs a compute connection, which this API was started without');
    const options = { snapshot: { name, organizationId: tenancy.organizationId, projectId: tenancy.projectId } };
    try {
      const { result, answer } = await runVerb(this.deps.compute, server, 'snapshot', options);
      await this.audit(ctx, 'snapshot', 2, server, tenancy, { verb: 'snapshot', image: result, name, ...answer });
      return result;
    } catch (error) {
      if (!(error instanceof VerbRefused)) throw error;
      await this.audit(ctx, 'snapshot', 2, server, tenancy, { verb: 'snapshot', name, ...error.answer });
      throw error.apiError ?? error.cause ?? error;
    }
  }

  // ---- v1 --------------------------------------------------------------------------------------

  /** The path's identity, when it exists in that organization and project and the caller may read its servers; else 404. */
  private async v1Scope(ctx: RequestContext, org: string, project: string, identityId: string): Promise<Tenancy> {
    const identity = (await this.deps.source.get('Identity', this.namespace, identityId)) as Identity | undefined;
    if (!identity || identity.spec.organizationID !== org || identity.spec.projectID !== project || !allowed(ctx.principal, ENDPOINTS.serversV1, 'read', org, project))
      throw notFound(`identity "${identityId}" not found`);
    return { organizationId: org, projectId: project, identityId };
  }

  private async v1Server(ctx: RequestContext, scope: Tenancy, id: string): Promise<Server> {
    const { server, tenancy } = await this.visible(ctx, id, '1', ENDPOINTS.serversV1);
    if (tenancy.organizationId !== scope.organizationId || tenancy.projectId !== scope.projectId || tenancy.identityId !== scope.identityId) throw notFound(`server "${id}" not found`);
    return server;
  }

  async createV1(ctx: RequestContext, org: string, project: string, identityId: string, body: V1Write, options: WriteOptions = {}) {
    const scope = await this.v1Scope(ctx, org, project, identityId);
    if (!allowed(ctx.principal, ENDPOINTS.serversV1, 'create', org, project)) throw forbidden('not allowed to create servers in this project');
    const network = await this.deps.source.get('Network', this.namespace, body.spec.networkId);
    if (!network || network.spec.identityRef.name !== identityId) throw unprocessable(`spec.networkId: network "${body.spec.networkId}" not found in identity "${identityId}"`);
    const s = body.spec;
    const object = this.checked({
      apiVersion: API_VERSION,
      kind: 'Server',
      metadata: {
        // v1 keeps its legacy random names: no per-network name deduplication (server-api.md).
        name: uuidv4(),
        namespace: network.metadata.namespace,
        labels: { [LABELS.apiVersion]: '1', [LABELS.organization]: org, [LABELS.project]: project, [LABELS.identity]: identityId, [LABELS.network]: network.metadata.name },
      },
      spec: {
        name: body.metadata.name,
        image: { id: s.imageId },
        flavor: { id: s.flavorId },
        networkID: network.metadata.name,
        ...(s.userData !== undefined ? { userData: s.userData } : {}),
        ...(s.securityGroups !== undefined ? { securityGroups: s.securityGroups } : {}),
      },
    });
    await checkSecurityGroupScope(this.deps.source, { namespace: object.metadata.namespace ?? this.namespace, networkID: object.spec.networkID, securityGroups: object.spec.securityGroups });
    this.checkUserData(s.userData, object.spec);
    if (this.deps.images) await this.deps.images.validate({ mode: 'create', imageId: s.imageId, flavorId: s.flavorId, tenancy: scope, network });
    const written = await this.createObject(ctx, object, options);
    if (written.plan) return this.planned(ctx, 'create', 1, written, toV1Read);
    const created = written.server;
    await this.audit(ctx, 'created', 1, created, scope, { imageId: s.imageId, flavorId: s.flavorId, networkId: network.metadata.name, userData: digest(s.userData) });
    return toV1Read(created);
  }

  async listV1(ctx: RequestContext, org: string, project: string, identityId: string) {
    await this.v1Scope(ctx, org, project, identityId);
    const { items } = await this.deps.source.list('Server', this.namespace);
    return (items as Server[])
      .filter((server) => apiVersionOf(server) === '1')
      .filter((server) => {
        const t = tenancyOf(server);
        return t !== undefined && t.organizationId === org && t.projectId === project && t.identityId === identityId;
      })
      .sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0))
      .map(toV1Read);
  }

  async getV1(ctx: RequestContext, org: string, project: string, identityId: string, id: string) {
    const scope = await this.v1Scope(ctx, org, project, identityId);
    return toV1Read(await this.v1Server(ctx, scope, id));
  }

  /** A v1 update: the imageId is ignored entirely (not validated, the stored image kept); the rest applies. */
  async updateV1(ctx: RequestContext, org: string, project: string, identityId: string, id: string, body: V1Write, options: WriteOptions = {}) {
    const scope = await this.v1Scope(ctx, org, project, identityId);
    const old = await this.v1Server(ctx, scope, id);
    if (!allowed(ctx.principal, ENDPOINTS.serversV1, 'update', org, project)) throw forbidden('not allowed to update this server');
    const s = body.spec;
    if (body.metadata.name !== old.spec.name) throw unprocessable(`metadata.name: server names are immutable (is "${old.spec.name}")`);
    if (!sameFlavor(old.spec.flavor, s.flavorId)) throw unprocessable('spec.flavorId: flavor changes are not supported');
    if (s.networkId !== old.spec.networkID) throw unprocessable('spec.networkId: a server cannot move to another network');
    const { userData: _u, securityGroups: _g, ...kept } = old.spec;
    const spec: ServerSpec = {
      ...kept,
      ...(s.userData !== undefined ? { userData: s.userData } : {}),
      ...(s.securityGroups !== undefined ? { securityGroups: s.securityGroups } : {}),
    };
    await checkSecurityGroupScope(this.deps.source, { namespace: old.metadata.namespace ?? this.namespace, networkID: old.spec.networkID, securityGroups: spec.securityGroups });
    if (s.userData !== old.spec.userData) this.checkUserData(s.userData, old.spec);
    const written = await this.updateObject(ctx, this.checked(this.replacement(old, spec), old), options);
    if (written.plan) return this.planned(ctx, 'update', 1, written, toV1Read);
    const updated = written.server;
    await this.audit(ctx, 'updated', 1, updated, scope, { userData: digest(s.userData), ...(sameImage(old.spec.image, s.imageId) ? {} : { imageIdIgnored: true }) });
    return toV1Read(updated);
  }

  async deleteV1(ctx: RequestContext, org: string, project: string, identityId: string, id: string): Promise<void> {
    const scope = await this.v1Scope(ctx, org, project, identityId);
    const server = await this.v1Server(ctx, scope, id);
    if (!allowed(ctx.principal, ENDPOINTS.serversV1, 'delete', org, project)) throw forbidden('not allowed to delete this server');
    await this.deleteObject(ctx, server, scope, 1);
  }
}
