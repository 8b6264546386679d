/** An SSHCertificateAuthority's status from its key (projections/ssh-certificate-authority-status.ts). */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { renderSshCertificateAuthority } from '../../projections/ssh-certificate-authority-status.js';
import { readPublicKey } from '../../src/provider/ssh-public-key.js';

const wire = (...parts: Buffer[]) => Buffer.concat(parts.flatMap((p) => [Buffer.from([0, 0, 0, 0].map((_, i) => (p.length >>> (24 - 8 * i)) & 0xff)), p]));
const ed25519Line = (comment = 'ca') => {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return `ssh-ed25519 ${wire(Buffer.from('ssh-ed25519'), raw).toString('base64')} ${comment}`;
};

describe('projection: SSHCertificateAuthority status', () => {
  it('a real ed25519 key is valid, with the fingerprint ssh-keygen -l prints (SHA256, unpadded base64 of the blob)', () => {
    // the example CA's key; `ssh-keygen -l -f` on it prints SHA256:ZfnXZTExAWD20Zf2MLgo/ao426KqWkWIFNgovGx8RRM
    const key = readPublicKey('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N acme-web-user-ca');
    expect(key).to.deep.equal({ ok: true, type: 'ssh-ed25519', fingerprint: 'SHA256:ZfnXZTExAWD20Zf2MLgo/ao426KqWkWIFNgovGx8RRM', comment: 'acme-web-user-ca' });
    expect(readPublicKey(ed25519Line()).ok).to.equal(true);
  });

  it('an RSA key (type, e, n) is valid', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' }) as { e: string; n: string };
    const mpint = (b64url: string) => { const b = Buffer.from(b64url, 'base64url'); return (b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b; };
    expect(readPublicKey(`ssh-rsa ${wire(Buffer.from('ssh-rsa'), mpint(jwk.e), mpint(jwk.n)).toString('base64')}`).ok).to.equal(true);
  });

  it('a blob of another type, a cut blob, a short ed25519 key are malformed, and the status says why', () => {
    const ed = ed25519Line().split(' ')[1] as string;
    expect(readPublicKey(`ssh-rsa ${ed}`)).to.deep.include({ ok: false, why: 'the blob is a "ssh-ed25519" key, the line says ssh-rsa' });
    expect(readPublicKey(`ssh-ed25519 ${ed.slice(0, 20)}`)).to.deep.include({ ok: false });
    expect(readPublicKey(`ssh-ed25519 ${wire(Buffer.from('ssh-ed25519'), Buffer.alloc(16)).toString('base64')}`)).to.deep.equal({ ok: false, why: 'an ed25519 key is 32 bytes, this one 16' });
    const status = renderSshCertificateAuthority({ spec: { organizationID: 'acme', projectID: 'web' }, key: readPublicKey(`ssh-rsa ${ed}`), generation: 2, at: '2026-12-02T00:00:00Z' });
    expect(status.phase).to.equal('Failed');
    expect(status).to.not.have.property('fingerprint');
    expect(status.conditions[0]).to.include({ type: 'Available', status: 'False', reason: 'KeyMalformed', observedGeneration: 2 });
  });

  it('a valid CA is Available, naming who may bind it', () => {
    const status = renderSshCertificateAuthority({ spec: { organizationID: 'acme', projectID: 'web' }, key: readPublicKey(ed25519Line()), generation: 1, at: '2026-12-02T00:00:00Z' });
    expect(status.phase).to.equal('Ready');
    expect(status.fingerprint).to.match(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(status.conditions[0]).to.include({ type: 'Available', status: 'True', reason: 'KeyValid' });
    expect(status.conditions[0]?.message).to.include('Servers of acme/web may bind it');
  });
});
