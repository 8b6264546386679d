/**
 * Per-Identity clients (issue 11, "Credential modes … per-identity credentials for project-scoped work
 * (servers, networks, volumes)"): a Server or Network is created, observed and deleted with the
 * credentials of its Identity — the application credential in the Identity's Secret, scoped to the
 * identity's own project — so one identity cannot see or touch another's resources. In a Region
 * without a managed domain the identity stands on the region credentials' own project.
 *
 * Sessions are cached by the Secret version they were built from: a rotated credential is used on the
 * next call, and `invalidate` drops one Keystone refused.
 */
import type { ResourceSource } from '../../kube/port.js';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { Identity } from '../../resources/identity.js';
import type { RegionConnections } from '../regions/connections.js';
import { identitySecretName } from './names.js';
import { identityCloudConfig } from './observe.js';

/**
 * Which link of a resource's scope (Network → Identity → Region) could not be used: what a status names as
 * the dependency while the resource cannot be observed (machines/scope-reachability.ts).
 */
export type ScopeLink = { kind: 'Network' | 'Identity' | 'Region'; name: string; why: string };

/** The Identity a resource names cannot be worked with yet (missing, not realized, its Region unusable). */
export class IdentityNotReady extends Error {
  override readonly name = 'IdentityNotReady';
  /** The link that failed; the Identity itself unless said otherwise. */
  readonly link: ScopeLink;
  constructor(
    readonly identity: string,
    why: string,
    link?: ScopeLink,
  ) {
    super(`Identity ${identity}: ${why}`);
    this.link = link ?? { kind: 'Identity', name: identity, why };
  }
}

/**
 * Region credentials cannot be bound to an identity's project: they are an application credential, which
 * Keystone ties to the project it was made in (re-scoping one is refused).
 */
export class BoundCredentialsUnavailable extends Error {
  override readonly name = 'BoundCredentialsUnavailable';
}

export interface IdentityScope {
  identity: Identity;
  session: OpenStackSession;
  /** The project every call is scoped to. */
  projectId: string;
  /** True when the identity has its own project (a managed domain); false: the region's own project. */
  isolated: boolean;
}

export class IdentitySessions {
  private readonly sessions = new Map<string, { key: string; session: Promise<OpenStackSession> }>();
  private readonly bound = new Map<string, { key: string; session: Promise<OpenStackSession> }>();

  constructor(private readonly options: { source: ResourceSource; connections: RegionConnections; connect: (cloud: CloudConfig) => Promise<OpenStackSession> }) {}

  async forIdentity(namespace: string, name: string): Promise<IdentityScope> {
    const identity = (await this.options.source.get('Identity', namespace, name)) as Identity | undefined;
    const ref = `${namespace}/${name}`;
    if (!identity) throw new IdentityNotReady(ref, 'does not exist');
    let region;
    try {
      region = await this.options.connections.region(namespace, identity.spec.regionRef.name);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new IdentityNotReady(ref, `its Region ${identity.spec.regionRef.name} cannot be used (${why})`, { kind: 'Region', name: `${namespace}/${identity.spec.regionRef.name}`, why });
    }
    if (!region) throw new IdentityNotReady(ref, `its Region ${identity.spec.regionRef.name} does not exist`, { kind: 'Region', name: `${namespace}/${identity.spec.regionRef.name}`, why: 'does not exist' });
    if (!region.region.spec.openstack.domainID) {
      const projectId = region.session.projectId;
      if (!projectId) throw new IdentityNotReady(ref, 'the region credentials are not scoped to a project');
      return { identity, session: region.session, projectId, isolated: false };
    }
    const secretRef = { namespace: this.options.connections.secretNamespaceFor(namespace), name: identitySecretName(identity.metadata.uid) };
    const secret = await this.options.source.secrets.get(secretRef.namespace, secretRef.name);
    const cloud = identityCloudConfig(region.cloud, secret?.data);
    if (!cloud || !secret) throw new IdentityNotReady(ref, 'is not realized yet (no application credential)');
    const key = `${secret.version}:${region.secretVersion}`;
    let cached = this.sessions.get(identity.metadata.uid);
    if (!cached || cached.key !== key) {
      const session = this.options.connect(cloud);
      cached = { key, session };
      this.sessions.set(identity.metadata.uid, cached);
      session.catch(() => {
        if (this.sessions.get(identity.metadata.uid)?.key === key) this.sessions.delete(identity.metadata.uid);
      });
    }
    const session = await cached.session;
    if (!session.projectId) throw new IdentityNotReady(ref, 'its credential is not scoped to a project');
    return { identity, session, projectId: session.projectId, isolated: true };
  }

  /**
   * The Region's own credentials bound to the identity's project (openstack-provider.md: "some operations
   * deliberately bind privileged credentials to a service principal's project when manager-level powers are
   * required … pinned server creation … still targets the identity project, but uses region-level
   * credentials so Nova policy can authorise the requested destination"). The region user holds its
   * service roles there (the Identity's step I3s); what the token may do is what those roles allow. In a
   * Region without a managed domain the identity's project is the region credentials' own: their session.
   * Cached per identity, rebuilt when the Region's Secret changes.
   */
  async regionBoundTo(scope: IdentityScope): Promise<OpenStackSession> {
    if (!scope.isolated) return scope.session;
    const namespace = scope.identity.metadata.namespace ?? 'default';
    const ref = `${namespace}/${scope.identity.metadata.name}`;
    const region = await this.options.connections.region(namespace, scope.identity.spec.regionRef.name);
    if (!region) throw new IdentityNotReady(ref, `its Region ${scope.identity.spec.regionRef.name} does not exist`);
    if (region.cloud.auth.type !== 'password') {
      throw new BoundCredentialsUnavailable(
        `the Region ${region.region.metadata.name}'s credentials are an application credential, which Keystone binds to its own project: binding them to the identity's project ${scope.projectId} needs password credentials`,
      );
    }
    const key = `${region.secretVersion}:${region.region.metadata.generation ?? 0}:${scope.projectId}`;
    let cached = this.bound.get(scope.identity.metadata.uid);
    if (!cached || cached.key !== key) {
      const session = this.options.connect({ ...region.cloud, scope: { kind: 'project', project: { id: scope.projectId } } });
      cached = { key, session };
      this.bound.set(scope.identity.metadata.uid, cached);
      session.catch(() => {
        if (this.bound.get(scope.identity.metadata.uid)?.key === key) this.bound.delete(scope.identity.metadata.uid);
      });
    }
    return cached.session;
  }

  /** Drops an identity's session (Keystone refused its credential; the Identity pass rotates it). */
  invalidate(identityUid: string): void {
    this.sessions.delete(identityUid);
  }
}
