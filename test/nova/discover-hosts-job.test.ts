/** The Nova's host-discovery Job a NovaCompute pool runs (src/nova/jobs/render.ts renderDiscoverHostsJob; issue 28). */
import { expect } from 'chai';
import { discoverHostsJobName, renderDiscoverHostsJob, renderNovaJob } from '../../src/nova/jobs/render.js';
import type { NovaSpec } from '../../src/resources/nova.js';

const spec: NovaSpec = {
  image: 'ghcr.io/c5c3/nova:2025.2',
  openStackRelease: '2025.2',
  database: {
    api: { clusterRef: { name: 'db' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'db' }, database: 'nova', secretRef: { name: 'nova-db' } },
  },
  messaging: { secretRef: { name: 'rabbit', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
} as NovaSpec;
const ref = { namespace: 'default', name: 'nova', uid: 'u-1' };
const config = { name: 'nova-config-abc', files: { 'nova.conf': '[DEFAULT]\n' } };

describe('the host-discovery Job <nova>-discover-hosts', () => {
  it('runs nova-manage cell_v2 discover_hosts with the Nova\'s config and connections, owned by the Nova', () => {
    const job = renderDiscoverHostsJob(ref, spec, { config });
    expect(job.name).to.equal(discoverHostsJobName('nova')).and.to.equal('nova-discover-hosts');
    expect(job.script).to.contain('nova-manage --config-file "$NOVA_CONFIG_DIR/nova.conf" cell_v2 discover_hosts');
    expect(job.owner).to.deep.equal({ kind: 'Nova', name: 'nova', uid: 'u-1' });
    expect(job.labels['regent.dev/nova-job']).to.equal('discover-hosts');
    expect(job.config).to.deep.equal(config);
    expect(job.env.map((e) => e.name)).to.deep.equal(['OS_API_DATABASE__CONNECTION', 'OS_DATABASE__CONNECTION', 'OS_DEFAULT__TRANSPORT_URL']);
    expect(job.env.every((e) => 'secretKeyRef' in e), 'credentials only as Secret references').to.equal(true);
  });

  it('its hash follows the config and the image, and differs from the Database step\'s Jobs', () => {
    const job = renderDiscoverHostsJob(ref, spec, { config });
    expect(renderDiscoverHostsJob(ref, spec, { config: { ...config, files: { 'nova.conf': '[DEFAULT]\ndebug = true\n' } } }).templateHash).to.not.equal(job.templateHash);
    expect(renderDiscoverHostsJob(ref, { ...spec, image: 'ghcr.io/c5c3/nova:2026.1' }, { config }).templateHash).to.not.equal(job.templateHash);
    expect(renderNovaJob(ref, spec, 'sync', { config }).templateHash).to.not.equal(job.templateHash);
  });
});
