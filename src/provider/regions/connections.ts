/**
 * The clients of each Region, built from the Region resource and its credentials Secret (issue 11,
 * "The Region is the cloud"; openstack-provider.md: "bootstrap uses uncached … reads to assemble
 * OpenStack service clients …; runtime operation … refreshes derived OpenStack client state when region
 * configuration or credentials change").
 *
 * Every call reads the Region and its Secret afresh (uncached reads, cheap on both stores) and reuses
 * the connection only while the Region's generation and the Secret's version are the ones it was built
 * from: a changed Secret is used on the next call, and the old credentials no longer. The same holds
 * for an Identity's session, built from the application credential in the Identity's Secret.
 */
import type { ResourceSource } from '../../kube/port.js';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { Region } from '../../resources/region.js';
import { regionCloudConfig } from './credentials.js';

export interface RegionConnection {
  region: Region;
  /** The Secret version the credentials came from. */
  secretVersion: string;
  cloud: CloudConfig;
  session: OpenStackSession;
}

export interface RegionConnectionsOptions {
  source: ResourceSource;
  /** Connects a CloudConfig (src/openstack/session.ts connect, with the control plane's options). */
  connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  /**
   * Where Secrets live when a reference names no namespace: on Kubernetes, Regent's own namespace (its
   * RBAC reaches secrets there only); on the embedded store, unset: the Region's namespace.
   */
  secretNamespace?: string;
  /**
   * The cloud the process was given (OS_CLOUD / OS_*, or a simulator) stands for the Region of this name
   * when no Region resource of that name exists: an unmanaged region (no managed domain), so Identities
   * in it use that cloud's own project. A Region resource of the same name wins: it is the explicit one.
   */
  processRegion?: { name: string; cloud: CloudConfig; session: OpenStackSession };
}

/** `<namespace>/<name>` of a Region's credentials Secret: its own namespace if it names one, else `secretNamespace`, else the Region's. */
export const credentialsSecretOf = (region: Region, secretNamespace?: string): { namespace: string; name: string } => ({
  namespace: region.spec.openstack.credentialsSecretRef.namespace ?? secretNamespace ?? region.metadata.namespace ?? 'default',
  name: region.spec.openstack.credentialsSecretRef.name,
});

export class RegionConnections {
  private readonly regions = new Map<string, { key: string; connection: Promise<RegionConnection> }>();

  constructor(private readonly options: RegionConnectionsOptions) {}

  /**
   * The Region's connection, rebuilt when its generation or its Secret changed since the last call;
   * undefined when there is no such Region. RegionUnusable when its Secret cannot be used; connecting
   * throws what Keystone answered (Unauthorized, Timeout, …).
   */
  async region(namespace: string, name: string): Promise<RegionConnection | undefined> {
    const region = (await this.options.source.get('Region', namespace, name)) as Region | undefined;
    if (!region) return this.processRegionNamed(namespace, name);
    const ref = credentialsSecretOf(region, this.options.secretNamespace);
    const secret = await this.options.source.secrets.get(ref.namespace, ref.name);
    const key = `${region.metadata.uid}:${region.metadata.generation ?? 1}:${secret?.version ?? 'none'}`;
    const cached = this.regions.get(region.metadata.uid);
    if (cached && cached.key === key) return cached.connection;
    const cloud = regionCloudConfig({ endpoint: region.spec.openstack.endpoint, region: region.spec.openstack.region, secretName: `${ref.namespace}/${ref.name}` }, secret?.data);
    const connection = this.options.connect(cloud).then((session) => ({ region, secretVersion: secret?.version ?? '', cloud, session }));
    this.regions.set(region.metadata.uid, { key, connection });
    // a failed connect is not kept: the next call tries again
    connection.catch(() => {
      if (this.regions.get(region.metadata.uid)?.key === key) this.regions.delete(region.metadata.uid);
    });
    return connection;
  }

  private processRegionNamed(namespace: string, name: string): RegionConnection | undefined {
    const standIn = this.options.processRegion;
    if (!standIn || standIn.name !== name) return undefined;
    const region: Region = {
      apiVersion: 'regent.dev/v1alpha1',
      kind: 'Region',
      metadata: { name, namespace, uid: `process-region-${name}`, generation: 1 },
      spec: { provider: 'openstack', openstack: { endpoint: standIn.cloud.authUrl, region: standIn.cloud.regionName ?? '', credentialsSecretRef: { name: '(the process environment)' } } },
    } as unknown as Region;
    return { region, secretVersion: 'process', cloud: standIn.cloud, session: standIn.session };
  }

  /** The namespace of Secrets Regent writes (an Identity's) for a resource in `namespace`. */
  secretNamespaceFor(namespace: string): string {
    return this.options.secretNamespace ?? namespace;
  }

  /** Drops what is cached for a Region (its resource was deleted). */
  forget(regionUid: string): void {
    this.regions.delete(regionUid);
  }
}
