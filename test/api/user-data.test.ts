import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { userDataProblem } from '../../src/api/user-data.js';
import { startApiRig, v2Body, type ApiRig } from './rig.js';

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const CLOUD_CONFIG = b64('#cloud-config\npackages: [nginx]\n');
const BROKEN_YAML = b64('#cloud-config\npackages: [nginx\n');
const GZIP = gzipSync(Buffer.from('#cloud-config\n')).toString('base64');
/** Only a gzip header (no deflate stream, no trailer): it does not decompress, and without a CA it is not Regent's to decompress. */
const GZIP_HEADER_ONLY = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]).toString('base64');

describe('api: userData validation', () => {
  describe('the formats cloud-init understands (pure)', () => {
    const cases: [string, string, boolean, boolean][] = [
      ['#cloud-config mapping', CLOUD_CONFIG, false, true],
      ['#cloud-config that is not YAML', BROKEN_YAML, false, false],
      ['#cloud-config that is a list', b64('#cloud-config\n- a\n'), false, false],
      ['a shell script', b64('#!/bin/sh\necho hi\n'), false, true],
      ['#include', b64('#include\nhttps://example.com/cfg\n'), false, true],
      ['jinja template over cloud-config', b64('## template: jinja\n#cloud-config\nhostname: {{ v1.local_hostname }}\n'), false, true],
      ['MIME multipart with a boundary', b64('Content-Type: multipart/mixed; boundary="XYZ"\nMIME-Version: 1.0\n\n--XYZ--\n'), false, true],
      ['plain text cloud-init ignores', b64('hello world\n'), false, false],
      ['not base64', '***', false, false],
      ['gzip without an SSH CA passes through', GZIP, false, true],
      ['gzip with an SSH CA', GZIP, true, false],
      ['gzip without an SSH CA is neither decompressed nor inspected: a header-only archive passes through (issue 24, item 3)', GZIP_HEADER_ONLY, false, true],
      ['a header-only gzip with an SSH CA', GZIP_HEADER_ONLY, true, false],
      ['a cloud-config with an SSH CA', CLOUD_CONFIG, true, true],
    ];
    for (const [title, value, ca, ok] of cases) {
      it(`${title} → ${ok ? 'accepted' : 'refused'}`, () => {
        const problem = userDataProblem(value, { sshCertificateAuthority: ca });
        if (ok) expect(problem, title).to.equal(undefined);
        else expect(problem, title).to.match(/^spec\.userData: /);
      });
    }
  });

  describe('over HTTP', () => {
    let rig: ApiRig;
    beforeEach(async () => {
      rig = await startApiRig();
      // the CA the servers bind: of net-a's tenancy (acme/web), as the scope rule requires
      await rig.source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'SSHCertificateAuthority', metadata: { name: 'ca-1' }, spec: { organizationID: 'acme', projectID: 'web', publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N ca-1' } });
    });
    afterEach(async () => rig.close());

    it('create with a malformed payload → 422, nothing stored', async () => {
      const reply = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { userData: BROKEN_YAML }) });
      expect(reply.status).to.equal(422);
      expect((reply.body as { error_description: string }).error_description).to.contain('spec.userData');
      expect(await rig.servers()).to.have.length(0);
    });

    it('create with an SSH CA and a gzip payload → 422; without a CA gzip is stored unmodified', async () => {
      expect((await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { sshCertificateAuthorityId: 'ca-1', userData: GZIP }) })).status).to.equal(422);
      const ok = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-2', { userData: GZIP }) });
      expect(ok.status).to.equal(201);
      expect((await rig.source.get('Server', 'default', (ok.body as { metadata: { id: string } }).metadata.id))?.spec.userData).to.equal(GZIP);
      // passed through unmodified means uninspected: an archive that would not decompress is the guest's business
      const headerOnly = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-3', { userData: GZIP_HEADER_ONLY }) });
      expect(headerOnly.status).to.equal(201);
      expect((await rig.source.get('Server', 'default', (headerOnly.body as { metadata: { id: string } }).metadata.id))?.spec.userData).to.equal(GZIP_HEADER_ONLY);
    });

    it('update validates a changed payload (422) with the server\'s current CA, and never re-validates an unchanged legacy payload', async () => {
      const created = await rig.call('POST', '/api/v2/servers', { body: v2Body('web-1', { sshCertificateAuthorityId: 'ca-1', userData: CLOUD_CONFIG }) });
      const id = (created.body as { metadata: { id: string } }).metadata.id;
      expect((await rig.call('PUT', `/api/v2/servers/${id}`, { body: v2Body('web-1', { userData: BROKEN_YAML }) })).status).to.equal(422);
      expect((await rig.call('PUT', `/api/v2/servers/${id}`, { body: v2Body('web-1', { userData: GZIP }) })).status).to.equal(422);
      // a payload stored before validation existed (written straight to the store), PUT back unchanged → 200
      const server = await rig.source.get('Server', 'default', id);
      await rig.source.update({ ...server!, spec: { ...server!.spec, userData: BROKEN_YAML } } as never);
      expect((await rig.call('PUT', `/api/v2/servers/${id}`, { body: v2Body('web-1', { userData: BROKEN_YAML }) })).status).to.equal(200);
    });
  });
});
