/**
 * Issue 24 (B): the metadata a Server's Nova server is created with (src/provider/servers.ts serverMetadata):
 * "server metadata is written deliberately as both a control-plane lookup aid and an in-guest linkage surface
 * exposed through the metadata service" — the Volume's convention exactly (machines/volume-metadata.ts): user
 * tags as `regent.dev:<tag>` first, the namespaced linkage keys last, so user input cannot override them.
 */
import { expect } from 'chai';
import { createServerHandler, NOVA_METADATA_MAX_LENGTH, OWNER_KEY, SERVER_ID_KEY, serverMetadata, type ServerLinkage } from '../../src/provider/servers.js';
import { LINKAGE_KEYS, METADATA_NAMESPACE } from '../../machines/volume-metadata.js';
import { silentLogger } from '../../src/log/logger.js';
import type { CreateServerRequest } from '../../src/openstack/nova/servers.js';

const UID = '0f0e0d0c-0b0a-4908-8706-050403020100';
const LINKAGE: ServerLinkage = { identityID: 'id-uid-1', organizationID: 'acme', projectID: 'web', regionID: 'region-one', networkID: 'net-uid-1' };

describe('server metadata (issue 24 B): the in-guest linkage keys', () => {
  it('writes the linkage keys named as the Volume names them, plus regent.dev:server-id and the ownership key regent.dev:uid', () => {
    expect(serverMetadata({ serverUid: UID, linkage: LINKAGE })).to.deep.equal({
      'regent.dev:identity-id': 'id-uid-1',
      'regent.dev:organization-id': 'acme',
      'regent.dev:project-id': 'web',
      'regent.dev:region-id': 'region-one',
      'regent.dev:network-id': 'net-uid-1',
      'regent.dev:server-id': UID,
      'regent.dev:uid': UID,
    });
    // the same names the Volume's metadata uses (one convention)
    expect([LINKAGE_KEYS.identity, LINKAGE_KEYS.organization, LINKAGE_KEYS.project, LINKAGE_KEYS.region, LINKAGE_KEYS.network, LINKAGE_KEYS.owner]).to.deep.equal([
      'regent.dev:identity-id', 'regent.dev:organization-id', 'regent.dev:project-id', 'regent.dev:region-id', 'regent.dev:network-id', OWNER_KEY,
    ]);
    expect(SERVER_ID_KEY).to.equal(LINKAGE_KEYS.volume.replace('volume-id', 'server-id'));
  });

  it("Regent's keys win: a user tag naming a linkage key, bare or namespaced, is overwritten by the system value", () => {
    const attack: Record<string, string> = {};
    for (const key of [...Object.values(LINKAGE_KEYS), SERVER_ID_KEY]) {
      attack[key] = 'attacker';
      attack[key.slice(METADATA_NAMESPACE.length)] = 'attacker';
    }
    const metadata = serverMetadata({ serverUid: UID, linkage: LINKAGE, tags: attack });
    expect(metadata[OWNER_KEY]).to.equal(UID);
    expect(metadata[SERVER_ID_KEY]).to.equal(UID);
    expect(metadata[LINKAGE_KEYS.identity]).to.equal('id-uid-1');
    expect(metadata[LINKAGE_KEYS.organization]).to.equal('acme');
    expect(metadata[LINKAGE_KEYS.project]).to.equal('web');
    expect(metadata[LINKAGE_KEYS.region]).to.equal('region-one');
    expect(metadata[LINKAGE_KEYS.network]).to.equal('net-uid-1');
    // regent.dev:volume-id is not a server's linkage key: a tag of that name stays a tag
    expect(metadata[LINKAGE_KEYS.volume]).to.equal('attacker');
    expect(Object.values(metadata).filter((v) => v === 'attacker')).to.have.length(1);
  });

  it("Regent's keys win also where the linkage is unknown: a tag cannot supply an identity the server does not have", () => {
    const metadata = serverMetadata({ serverUid: UID, linkage: { networkID: 'net-uid-1' }, tags: { 'identity-id': 'forged', 'regent.dev:organization-id': 'forged' } });
    expect(metadata).to.deep.equal({ 'regent.dev:network-id': 'net-uid-1', 'regent.dev:server-id': UID, 'regent.dev:uid': UID });
  });

  it('user tags are namespaced (never bare, never doubled) and written in sorted order; no legacy camelCase keys', () => {
    const metadata = serverMetadata({ serverUid: UID, linkage: LINKAGE, tags: { zone: 'b', 'regent.dev:cost-centre': '42', team: 'web' } });
    expect(metadata).to.include({ 'regent.dev:zone': 'b', 'regent.dev:cost-centre': '42', 'regent.dev:team': 'web' });
    expect(Object.keys(metadata).every((k) => k.startsWith(METADATA_NAMESPACE))).to.equal(true);
    expect(Object.keys(metadata).slice(0, 3)).to.deep.equal(['regent.dev:cost-centre', 'regent.dev:team', 'regent.dev:zone']);
    for (const legacy of ['identityID', 'organizationID', 'projectID', 'regionID', 'networkID', 'serverID']) expect(Object.keys(metadata).some((k) => k.endsWith(legacy))).to.equal(false);
  });

  it("every key and value fits Nova's limits (255 characters, its key pattern) with the longest values the resource codecs allow", () => {
    const longest: ServerLinkage = {
      identityID: 'f'.repeat(36),
      organizationID: 'o'.repeat(63), // DnsLabel
      projectID: 'p'.repeat(63), // DnsLabel
      regionID: `${'r'.repeat(61)}.${'r'.repeat(63)}.${'r'.repeat(63)}.${'r'.repeat(63)}`, // ObjectName: 253
      networkID: 'f'.repeat(36),
    };
    expect(longest.regionID).to.have.length(253);
    for (const [key, value] of Object.entries(serverMetadata({ serverUid: UID, linkage: longest }))) {
      expect(key).to.match(/^[a-zA-Z0-9-_:. ]{1,255}$/);
      expect(value.length, key).to.be.at.most(NOVA_METADATA_MAX_LENGTH);
    }
  });

  it('nova.createServer sends the recorded metadata, the ownership key last and always its own uid; a request recorded before issue 24 sends the ownership key only', async () => {
    const sent: CreateServerRequest[] = [];
    const os = { nova: { createServer: async (req: CreateServerRequest) => (sent.push(req), { id: 'nova-1', requestId: 'req-1' }) } } as never;
    const handler = createServerHandler(os, () => undefined);
    const context = { logger: silentLogger() } as never;
    const desired = { name: 'web-1', imageId: 'img', flavorId: 'f1', networkId: 'n1', ownerUid: UID };
    const metadata = { ...serverMetadata({ serverUid: UID, linkage: LINKAGE }), [OWNER_KEY]: 'someone-else' };
    expect(await handler({ type: 'nova.createServer', desired: { ...desired, metadata } }, context)).to.deep.equal({ type: 'created', id: 'nova-1' });
    expect(sent[0]?.metadata).to.deep.equal({ ...serverMetadata({ serverUid: UID, linkage: LINKAGE }) });
    expect(Object.keys(sent[0]?.metadata ?? {}).at(-1)).to.equal(OWNER_KEY);
    await handler({ type: 'nova.createServer', desired }, context);
    expect(sent[1]?.metadata).to.deep.equal({ [OWNER_KEY]: UID });
  });
});
