import { expect } from 'chai';
import { UnreadableResponse } from '../../src/openstack/errors.js';
import { decodeServer } from '../../src/openstack/decoders/server.js';
import { decodeAttachment, decodeNovaVolumeAttachment, decodeVolume } from '../../src/openstack/decoders/volume.js';
import { decodeCreatedLoadBalancer, decodeListener, decodeLoadBalancer } from '../../src/openstack/decoders/octavia.js';
import { decodeImage } from '../../src/openstack/decoders/image.js';
import { valueOr } from '../../src/openstack/decoders/field.js';
import { decodeInstanceAction } from '../../src/openstack/decoders/instance-action.js';

const server = (over: Record<string, unknown> = {}, drop: string[] = []): Record<string, unknown> => {
  const base: Record<string, unknown> = {
    id: 'srv-1', name: 'web-1', status: 'ACTIVE', tenant_id: 'p1',
    'OS-EXT-STS:task_state': null, 'OS-EXT-STS:vm_state': 'active', 'OS-SRV-USG:launched_at': '2024-05-01T10:00:00.000000',
    image: { id: '7c1e2f3a-0b4d-4e5f-8a9b-0c1d2e3f4a5b', links: [] },
    addresses: { net: [{ addr: '192.0.2.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': 'FA:16:3E:00:00:01', 'OS-EXT-IPS:type': 'fixed' }] },
    metadata: { 'regent.io/server': 'abc' },
    'some-future-field': { nested: true },
    ...over,
  };
  for (const key of drop) delete base[key];
  return base;
};

describe('decoders', () => {
  describe('server observation', () => {
    it('decodes every decision field of a settled server as a value', () => {
      const s = decodeServer(server(), '2024-05-01T10:00:01.000Z');
      expect(s).to.deep.include({ id: 'srv-1', name: 'web-1', observedAt: '2024-05-01T10:00:01.000Z' });
      expect(s.status).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
      expect(s.taskState).to.deep.equal({ kind: 'value', value: null });
      expect(s.launchedAt).to.deep.equal({ kind: 'value', value: '2024-05-01T10:00:00.000000' });
      expect(s.imageRef).to.deep.equal({ kind: 'value', value: { source: 'image', id: '7c1e2f3a-0b4d-4e5f-8a9b-0c1d2e3f4a5b' } });
      expect(s.macAddresses).to.deep.equal({ kind: 'value', value: ['fa:16:3e:00:00:01'] });
      expect(s.metadata).to.deep.equal({ kind: 'value', value: { 'regent.io/server': 'abc' } });
      expect(s.fault).to.deep.equal({ kind: 'absent' });
      expect(s.projectId).to.deep.equal({ kind: 'value', value: 'p1' });
    });

    it('a task_state hidden by policy is absent, not null', () => {
      expect(decodeServer(server({}, ['OS-EXT-STS:task_state'])).taskState).to.deep.equal({ kind: 'absent' });
    });

    it('an unknown status is unreadable with its raw value, never mapped to a neighbour', () => {
      expect(decodeServer(server({ status: 'REBUILDING_SOMEHOW' })).status).to.deep.equal({ kind: 'unreadable', raw: 'REBUILDING_SOMEHOW' });
      expect(decodeServer(server({ status: 42 })).status).to.deep.equal({ kind: 'unreadable', raw: 42 });
    });

    it('image "" is boot-from-volume; null or an id-less object is unreadable; a missing image is absent', () => {
      expect(decodeServer(server({ image: '' })).imageRef).to.deep.equal({ kind: 'value', value: { source: 'volume' } });
      expect(decodeServer(server({ image: null })).imageRef).to.deep.equal({ kind: 'unreadable', raw: null });
      expect(decodeServer(server({ image: { links: [] } })).imageRef.kind).to.equal('unreadable');
      expect(decodeServer(server({ image: 'img-1' })).imageRef.kind).to.equal('unreadable');
      expect(decodeServer(server({}, ['image'])).imageRef).to.deep.equal({ kind: 'absent' });
    });

    it('an image id that is present but not a UUID is unreadable, never an image (issue 10, item 4)', () => {
      for (const id of ['not-a-uuid', 'img-1', '7c1e2f3a0b4d4e5f8a9b0c1d2e3f4a5b', ' 7c1e2f3a-0b4d-4e5f-8a9b-0c1d2e3f4a5b', '7c1e2f3a-0b4d-4e5f-8a9b-0c1d2e3f4a5b/x']) {
        expect(decodeServer(server({ image: { id, links: [] } })).imageRef, id).to.deep.equal({ kind: 'unreadable', raw: { id, links: [] } });
      }
      expect(decodeServer(server({ image: { id: '7C1E2F3A-0B4D-4E5F-8A9B-0C1D2E3F4A5B' } })).imageRef.kind).to.equal('value');
    });

    it('launched_at null (never booted, or reset by rebuild) is a value; garbage is unreadable', () => {
      expect(decodeServer(server({ 'OS-SRV-USG:launched_at': null })).launchedAt).to.deep.equal({ kind: 'value', value: null });
      expect(decodeServer(server({ 'OS-SRV-USG:launched_at': 'yesterday' })).launchedAt.kind).to.equal('unreadable');
      expect(decodeServer(server({ 'OS-SRV-USG:launched_at': '' })).launchedAt.kind).to.equal('unreadable');
      expect(decodeServer(server({ 'OS-SRV-USG:launched_at': '2024-05-01T10:00:00Z' })).launchedAt.kind).to.equal('value');
    });

    it('addresses without MACs give absent MACs; a mix of with and without is unreadable', () => {
      const noMac = { net: [{ addr: '192.0.2.5', version: 4 }] };
      expect(decodeServer(server({ addresses: noMac })).macAddresses).to.deep.equal({ kind: 'absent' });
      const mixed = { a: [{ addr: '192.0.2.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01' }], b: [{ addr: '192.0.2.6', version: 4 }] };
      expect(decodeServer(server({ addresses: mixed })).macAddresses.kind).to.equal('unreadable');
      expect(decodeServer(server({ addresses: {} })).macAddresses).to.deep.equal({ kind: 'value', value: [] });
      expect(decodeServer(server({ addresses: 'none' })).addresses.kind).to.equal('unreadable');
    });

    it('two addresses on one port give one MAC', () => {
      const twoIps = { net: [
        { addr: '192.0.2.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01' },
        { addr: '2001:db8::5', version: 6, 'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01' },
      ] };
      expect(decodeServer(server({ addresses: twoIps })).macAddresses).to.deep.equal({ kind: 'value', value: ['fa:16:3e:00:00:01'] });
    });

    it('metadata with a non-string value is unreadable', () => {
      expect(decodeServer(server({ metadata: { a: 1 } })).metadata.kind).to.equal('unreadable');
    });

    it('a fault on an ERROR server is read', () => {
      const s = decodeServer(server({ status: 'ERROR', fault: { code: 500, message: 'No valid host was found. ', created: 'x' } }));
      expect(s.fault).to.deep.equal({ kind: 'value', value: { code: 500, message: 'No valid host was found. ' } });
    });

    it('a server without a string id or name cannot be observed at all', () => {
      expect(() => decodeServer(server({ id: 7 }))).to.throw(UnreadableResponse).with.property('problems').that.deep.equals(['id: expected string, got number']);
      expect(() => decodeServer(server({}, ['name']))).to.throw(UnreadableResponse);
      expect(() => decodeServer('nope')).to.throw(UnreadableResponse);
    });

    it('valueOr is for display only', () => {
      expect(valueOr(decodeServer(server({ status: 'X' })).status, 'unknown')).to.equal('unknown');
    });
  });

  describe('volume observation', () => {
    const volume = {
      id: 'vol-1', name: 'volume-abc', status: 'in-use', size: 10, volume_type: 'fast', multiattach: false, availability_zone: 'nova',
      metadata: {}, attachments: [{ attachment_id: 'att-1', server_id: 'srv-1', device: '/dev/sdb', host_name: null, attached_at: '2024-05-01T10:00:00.000000', id: 'vol-1', volume_id: 'vol-1' }],
    };
    it('decodes status and attachment refs', () => {
      const v = decodeVolume(volume);
      expect(v.status).to.deep.equal({ kind: 'value', value: 'in-use' });
      expect(v.attachments).to.deep.equal({ kind: 'value', value: [{ attachmentId: 'att-1', serverId: 'srv-1', device: '/dev/sdb', hostName: null, attachedAt: '2024-05-01T10:00:00.000000' }] });
      expect(v.size).to.deep.equal({ kind: 'value', value: 10 });
    });
    it('an unknown status and an attachment without server_id are unreadable', () => {
      const v = decodeVolume({ ...volume, status: 'frobnicating', attachments: [{ device: '/dev/sdb' }] });
      expect(v.status).to.deep.equal({ kind: 'unreadable', raw: 'frobnicating' });
      expect(v.attachments.kind).to.equal('unreadable');
    });
    it('an unnamed volume has name null', () => {
      expect(decodeVolume({ id: 'v', name: null }).name).to.equal(null);
    });
  });

  describe('attachment rows', () => {
    it('decodes a Cinder attachment row and never keeps connection_info', () => {
      const row = { id: 'att-1', status: 'attached', instance: 'srv-1', volume_id: 'vol-1', attach_mode: 'rw', attached_at: '2024-05-01T10:00:00.000000', connection_info: { auth_password: 'chap-secret' } };
      const a = decodeAttachment(row);
      expect(a.status).to.deep.equal({ kind: 'value', value: 'attached' });
      expect(a.instance).to.deep.equal({ kind: 'value', value: 'srv-1' });
      expect(a.attachMode).to.deep.equal({ kind: 'value', value: 'rw' });
      expect(JSON.stringify(a)).to.not.contain('chap-secret');
    });
    it('a reservation row has instance null; an odd status is unreadable', () => {
      const a = decodeAttachment({ id: 'att-2', status: 'bogus', instance: null, volume_id: 'v' });
      expect(a.instance).to.deep.equal({ kind: 'value', value: null });
      expect(a.status.kind).to.equal('unreadable');
      expect(a.attachMode).to.deep.equal({ kind: 'absent' });
    });
    it('decodes a Nova 2.89 volume attachment', () => {
      const n = decodeNovaVolumeAttachment({ serverId: 's', volumeId: 'v', device: '/dev/sdb', tag: null, delete_on_termination: false, attachment_id: 'a', bdm_uuid: 'b' });
      expect(n).to.deep.equal({ serverId: 's', volumeId: 'v', device: '/dev/sdb', tag: null, deleteOnTermination: false, attachmentId: 'a', bdmUuid: 'b' });
    });
  });

  describe('octavia observation', () => {
    it('decodes provisioning and operating status', () => {
      const lb = decodeLoadBalancer({ id: 'lb', name: 'lb-x', provisioning_status: 'PENDING_UPDATE', operating_status: 'OFFLINE', vip_address: '192.0.2.9', vip_port_id: 'p', listeners: [{ id: 'l1' }], pools: [] });
      expect(lb.provisioningStatus).to.deep.equal({ kind: 'value', value: 'PENDING_UPDATE' });
      expect(lb.operatingStatus).to.deep.equal({ kind: 'value', value: 'OFFLINE' });
      expect(lb.listenerIds).to.deep.equal({ kind: 'value', value: ['l1'] });
    });
    it('an unknown provisioning status is unreadable; a missing one is absent', () => {
      expect(decodeLoadBalancer({ id: 'lb', provisioning_status: 'BUSY' }).provisioningStatus).to.deep.equal({ kind: 'unreadable', raw: 'BUSY' });
      expect(decodeListener({ id: 'l' }).provisioningStatus).to.deep.equal({ kind: 'absent' });
    });
    it('decodes a fully populated create answer: full listeners and pools, members inline, Zed\'s null monitor', () => {
      const member = { id: 'm1', name: '', provisioning_status: 'PENDING_CREATE', operating_status: 'NO_MONITOR', address: '192.0.2.10', protocol_port: 8443, subnet_id: 's', weight: 1 };
      const lb = decodeCreatedLoadBalancer({
        id: 'lb', name: 'lb-x', provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE',
        listeners: [{ id: 'l1', name: 'https', provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', protocol: 'TCP', protocol_port: 443, default_pool_id: 'p1', l7policies: [] }],
        pools: [
          { id: 'p1', name: 'pool', provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN', listeners: [{ id: 'l1' }], members: [member], healthmonitor: null },
          { id: 'p2', name: 'api-ref', protocol: 'TCP', members: [], healthmonitor: { id: 'h2', type: 'TCP', delay: 3, timeout: 1, max_retries: 2, max_retries_down: 3 } },
          { id: 'p3', name: 'odd', healthmonitor: 'h3' },
        ],
      });
      expect(lb.listenerIds).to.deep.equal({ kind: 'value', value: ['l1'] });
      expect(lb.poolIds).to.deep.equal({ kind: 'value', value: ['p1', 'p2', 'p3'] });
      expect(lb.listeners[0]?.defaultPoolId).to.deep.equal({ kind: 'value', value: 'p1' });
      expect(lb.listeners[0]?.loadBalancerIds).to.deep.equal({ kind: 'absent' });
      expect(lb.pools[0]?.members.map((m) => [m.id, m.operatingStatus])).to.deep.equal([['m1', { kind: 'value', value: 'NO_MONITOR' }]]);
      expect(lb.pools.map((p) => p.healthMonitor.kind === 'value' ? p.healthMonitor.value?.id ?? null : p.healthMonitor.kind)).to.deep.equal([null, 'h2', 'unreadable']);
      expect(lb.pools[0]?.healthMonitorId).to.deep.equal({ kind: 'absent' });
      const plain = decodeCreatedLoadBalancer({ id: 'lb', listeners: [], pools: [] });
      expect([plain.listeners, plain.pools]).to.deep.equal([[], []]);
      expect(decodeCreatedLoadBalancer({ id: 'lb' }).listeners).to.deep.equal([]);
    });
  });

  describe('image observation', () => {
    it('collects custom properties apart from core attributes', () => {
      const i = decodeImage({ id: 'img', name: 'ubuntu', status: 'active', size: 10, architecture: 'x86_64', hw_firmware_type: 'uefi', tags: ['a'] });
      expect(i.properties).to.deep.equal({ architecture: 'x86_64', hw_firmware_type: 'uefi' });
      expect(i.status).to.deep.equal({ kind: 'value', value: 'active' });
    });
  });
});

describe('decoders: Nova instance actions', () => {
  const action = (over: Record<string, unknown> = {}, drop: string[] = []): Record<string, unknown> => {
    const base: Record<string, unknown> = {
      action: 'rebuild', instance_uuid: 'srv-1', message: null, project_id: 'p1', request_id: 'req-4f1c', start_time: '2024-05-01T10:00:00.000000',
      user_id: 'u1', updated_at: '2024-05-01T10:00:03.000000', ...over,
    };
    for (const key of drop) delete base[key];
    return base;
  };

  it('keeps action, request id, start_time as Nova printed it and a null message', () => {
    expect(decodeInstanceAction(action())).to.deep.equal({
      action: 'rebuild', requestId: 'req-4f1c', startTime: '2024-05-01T10:00:00.000000', message: null,
      fields: { startTime: { kind: 'value', value: '2024-05-01T10:00:00.000000' }, message: { kind: 'value', value: null } },
    });
  });

  it('a failed action keeps its message', () => {
    expect(decodeInstanceAction(action({ message: 'Error' })).message).to.equal('Error');
  });

  it('a missing or odd start_time or message is null in the plain fields and absent or unreadable in `fields`, never guessed', () => {
    const missing = decodeInstanceAction(action({}, ['start_time', 'message']));
    expect(missing.startTime).to.equal(null);
    expect(missing.fields).to.deep.equal({ startTime: { kind: 'absent' }, message: { kind: 'absent' } });
    const odd = decodeInstanceAction(action({ start_time: 'yesterday', message: 42 }));
    expect(odd.startTime).to.equal(null);
    expect(odd.fields).to.deep.equal({ startTime: { kind: 'unreadable', raw: 'yesterday' }, message: { kind: 'unreadable', raw: 42 } });
  });

  it('an action without its name or request id (missing, empty, not a string) cannot be read at all', () => {
    for (const bad of [action({}, ['action']), action({}, ['request_id']), action({ request_id: '' }), action({ action: 7 }), null, 'rebuild']) {
      expect(() => decodeInstanceAction(bad)).to.throw(UnreadableResponse);
    }
  });
});
