/** The WorkloadCluster codec (issue 29): what an absent field means, each refusal's message, immutability, the exports. */
import { expect } from 'chai';
import { isRight } from 'fp-ts/lib/Either.js';
import { ClusterExports, resolveWorkloadCluster, validateWorkloadCluster, type WorkloadClusterSpec } from '../../src/resources/index.js';
import { exportsOf } from './cases/workload-cluster.cases.js';

const SUBNET = '6f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
const object = (spec: Record<string, unknown>) => ({ apiVersion: 'regent.dev/v1alpha1', kind: 'WorkloadCluster', metadata: { name: 'demo', namespace: 'team-a' }, spec: { identityRef: { name: 'acme' }, subnetID: SUBNET, ...spec } });
const message = (spec: Record<string, unknown>, old?: Record<string, unknown>): string => {
  const previous = old === undefined ? undefined : validateWorkloadCluster(object(old));
  const result = validateWorkloadCluster(object(spec), previous?.ok ? previous.value : undefined);
  if (result.ok) throw new Error('expected a refusal');
  return result.message;
};

describe('WorkloadCluster codec', () => {
  it('no default is written into the object; resolveWorkloadCluster says what absent means', () => {
    const result = validateWorkloadCluster(object({}));
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value.spec).to.deep.equal({ identityRef: { name: 'acme' }, subnetID: SUBNET });
    expect(resolveWorkloadCluster(result.value.spec)).to.deep.equal({
      distribution: 'kubeadm',
      apiServerPort: 6443,
      providerIDFormat: 'default',
      serverGroupPolicy: 'anti-affinity',
      apiEndpoint: { public: false, floatingIPPool: null, allowedCIDRs: [], provider: 'amphora' },
      controlPlaneEndpoint: null,
      nodeAllowedAddressCIDRs: [],
      additionalTags: {},
    });
  });

  it('resolves None to no server group, cloudDefaultProvider to a null provider, a supplied endpoint to no apiEndpoint', () => {
    const spec = (extra: Partial<WorkloadClusterSpec>): WorkloadClusterSpec => ({ identityRef: { name: 'acme' }, subnetID: SUBNET, ...extra });
    expect(resolveWorkloadCluster(spec({ serverGroupPolicy: 'None' })).serverGroupPolicy).to.equal(null);
    expect(resolveWorkloadCluster(spec({ serverGroupPolicy: 'soft-anti-affinity' })).serverGroupPolicy).to.equal('soft-anti-affinity');
    expect(resolveWorkloadCluster(spec({ apiEndpoint: { cloudDefaultProvider: true } })).apiEndpoint?.provider).to.equal(null);
    expect(resolveWorkloadCluster(spec({ apiEndpoint: { provider: 'ovn', public: true } })).apiEndpoint).to.deep.include({ provider: 'ovn', public: true });
    const supplied = resolveWorkloadCluster(spec({ controlPlaneEndpoint: { host: 'api.example.com', port: 443 } }));
    expect(supplied.apiEndpoint).to.equal(null);
    expect(supplied.controlPlaneEndpoint).to.deep.equal({ host: 'api.example.com', port: 443 });
  });

  it('refuses with messages that name the field and the rule', () => {
    expect(message({ subnetID: 'subnet-a' })).to.equal('WorkloadCluster "team-a/demo" is invalid: spec.subnetID: Invalid value: "subnet-a": must be a UUID');
    expect(message({ apiServerPort: 70000 })).to.contain('spec.apiServerPort: Invalid value: 70000: must be less than or equal to 65535');
    expect(message({ distribution: 'k3s' })).to.contain('spec.distribution: Unsupported value: "k3s": supported values: "kubeadm", "rke2"');
    expect(message({ serverGroupPolicy: 'affinity' })).to.contain('supported values: "anti-affinity", "soft-anti-affinity", "None"');
    expect(message({ apiEndpoint: {}, controlPlaneEndpoint: { host: 'a.example', port: 6443 } })).to.contain('spec: Invalid value: "object": apiEndpoint and controlPlaneEndpoint are mutually exclusive');
    expect(message({ apiEndpoint: { provider: 'amphora', cloudDefaultProvider: true } })).to.contain('spec.apiEndpoint: Invalid value: "object": provider and cloudDefaultProvider are mutually exclusive');
    expect(message({ apiEndpoint: { allowedCIDRs: ['10.0.0.1'] } })).to.contain('spec.apiEndpoint.allowedCIDRs[0]: Invalid value: "10.0.0.1": must be a CIDR');
    expect(message({ additionalTags: { ['k'.repeat(129)]: 'v' } })).to.contain('spec.additionalTags: Invalid value: "object": every additionalTags key must be 1 to 128 characters');
    expect(message({ additionalTags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`t${i}`, 'v'])) })).to.contain('spec.additionalTags: Too many: 51: must have at most 50 items');
    expect(message({ identityRef: undefined })).to.contain('spec.identityRef: Required value');
  });

  it('identityRef is immutable; the guarded fields are not (the machine refuses their change with a condition)', () => {
    expect(message({ identityRef: { name: 'other' } }, {})).to.contain('spec.identityRef.name: Invalid value: "string": identityRef.name is immutable');
    const old = validateWorkloadCluster(object({ apiServerPort: 6443 }));
    if (!old.ok) throw new Error(old.message);
    expect(validateWorkloadCluster(object({ subnetID: '7f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f', apiServerPort: 443, apiEndpoint: { public: true } }), old.value).ok).to.equal(true);
  });

  it('stores what the machine refuses as a precondition: a long tag pair, a public endpoint without CIDRs or pool, ovn with allowed CIDRs', () => {
    expect(validateWorkloadCluster(object({ additionalTags: { ['k'.repeat(128)]: 'v'.repeat(255) } })).ok).to.equal(true);
    expect(validateWorkloadCluster(object({ apiEndpoint: { public: true } })).ok).to.equal(true);
    expect(validateWorkloadCluster(object({ apiEndpoint: { provider: 'ovn', allowedCIDRs: ['203.0.113.0/24'] } })).ok).to.equal(true);
  });

  describe('ClusterExports', () => {
    it('decodes the exports, keeping every key', () => {
      const decoded = ClusterExports.decode(exportsOf());
      expect(isRight(decoded)).to.equal(true);
      if (isRight(decoded)) expect(decoded.right).to.deep.equal(exportsOf());
    });

    it('keeps a null api, server group and rke2 pool, and reads an absent one as null', () => {
      const supplied = { ...exportsOf(null), control_plane_server_group_id: null };
      const decoded = ClusterExports.decode(supplied);
      expect(isRight(decoded) && decoded.right).to.deep.equal(supplied);
      const { api: _api, control_plane_server_group_id: _group, ...absent } = supplied as Record<string, unknown>;
      const filled = ClusterExports.decode(absent);
      expect(isRight(filled) && filled.right).to.deep.equal(supplied);
      const kubeadm = exportsOf({ host: '10.0.0.5', port: 6443, pools: { kube_apiserver: { id: '2b3c4d5e-6f70-4b8c-9d0e-1f2a3b4c5d6e', port: 6443 } } });
      const pools = ClusterExports.decode(kubeadm);
      expect(isRight(pools) && pools.right.api?.pools.rke2_supervisor).to.equal(null);
      expect(ClusterExports.is(supplied)).to.equal(true);
    });

    it('refuses another schema, a missing key, a bad id', () => {
      expect(isRight(ClusterExports.decode({ ...exportsOf(), schema: 'captf.io/openstack-cluster/v2' }))).to.equal(false);
      const { region: _region, ...noRegion } = exportsOf();
      expect(isRight(ClusterExports.decode(noRegion))).to.equal(false);
      expect(isRight(ClusterExports.decode({ ...exportsOf(), network_id: 'net-a' }))).to.equal(false);
    });

    it('a status holding exports with nulls validates and keeps the nulls', () => {
      const exports = { ...exportsOf(null), control_plane_server_group_id: null };
      const result = validateWorkloadCluster({ ...object({}), status: { exports, exportsConfigMap: 'demo-openstack-exports' } });
      expect(result.ok && result.value.status?.exports).to.deep.equal(exports);
    });
  });
});
