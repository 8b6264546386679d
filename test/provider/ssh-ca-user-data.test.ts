/**
 * Managed cloud-init augmentation for sshInjection ca (src/provider/ssh-ca-user-data.ts): the user's
 * payload reaches the guest unmodified as one part of a MIME multipart, Regent's CA part follows, and
 * the archive is one cloud-init accepts (the API's own user-data check, which mirrors cloud-init's format
 * detection, accepts it). The parts are read back here with a MIME reader written for the test.
 */
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import YAML from 'yaml';
import { augmentUserDataWithCa, CA_KEY_PATH, SSHD_DROP_IN_PATH, UnaugmentableUserData } from '../../src/provider/ssh-ca-user-data.js';
import { userDataProblem } from '../../src/api/user-data.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N user-ca';

interface Part { headers: Record<string, string>; body: Buffer }

/** Splits a multipart/mixed document into its parts, decoding base64 bodies. */
const partsOf = (doc: string): Part[] => {
  const boundary = /boundary="([^"]+)"/.exec(doc.split('\r\n\r\n', 1)[0] ?? '')?.[1];
  if (!boundary) throw new Error('no boundary');
  const chunks = doc.split(`--${boundary}`);
  expect(chunks.at(-1)?.startsWith('--'), 'closing delimiter').to.equal(true);
  return chunks.slice(1, -1).map((chunk) => {
    const raw = chunk.replace(/^\r\n/, '').replace(/\r\n$/, '');
    const split = raw.search(/\r?\n\r?\n/);
    const headerText = raw.slice(0, split);
    const bodyText = raw.slice(split).replace(/^\r?\n\r?\n/, '');
    const headers = Object.fromEntries(headerText.split(/\r?\n/).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const body = headers['content-transfer-encoding'] === 'base64' ? Buffer.from(bodyText.replace(/\s+/g, ''), 'base64') : Buffer.from(bodyText, 'utf8');
    return { headers, body };
  });
};

const regentPart = (part: Part | undefined) => {
  expect(part?.headers['content-type']).to.match(/^text\/cloud-config/);
  const text = part?.body.toString('utf8') ?? '';
  expect(text.startsWith('#cloud-config\n')).to.equal(true);
  return YAML.parse(text) as { write_files: Array<{ path: string; content: string }>; runcmd: unknown[]; merge_how: unknown[] };
};

describe('provider: user data augmented with the SSH certificate authority', () => {
  it('a #cloud-config payload travels unmodified beside Regent\'s CA part, which writes the key and the sshd directive', () => {
    const user = Buffer.from('#cloud-config\npackages: [nginx]\nwrite_files:\n  - path: /etc/motd\n    content: hello\n');
    const doc = augmentUserDataWithCa(user, KEY);
    const [first, second, ...rest] = partsOf(doc);
    expect(rest).to.have.length(0);
    expect(first?.headers['content-type']).to.match(/^text\/cloud-config/);
    expect(first?.body.equals(user), 'the user payload, byte for byte').to.equal(true);
    const ours = regentPart(second);
    expect(ours.write_files.map((f) => f.path)).to.deep.equal([CA_KEY_PATH, SSHD_DROP_IN_PATH]);
    expect(ours.write_files[0]?.content).to.equal(`${KEY}\n`);
    expect(ours.write_files[1]?.content).to.equal(`TrustedUserCAKeys ${CA_KEY_PATH}\n`);
    // merged into the user's cloud-config: lists appended, the user's keys kept (their write_files survive)
    expect(ours.merge_how).to.deep.equal([{ name: 'list', settings: ['append'] }, { name: 'dict', settings: ['no_replace', 'recurse_list'] }]);
    expect(userDataProblem(Buffer.from(doc).toString('base64'), { sshCertificateAuthority: true }), 'cloud-init accepts the archive').to.equal(undefined);
  });

  it('a shell script keeps its type (text/x-shellscript) and bytes', () => {
    const user = Buffer.from('#!/bin/sh\necho "--==not a boundary==" > /tmp/x\n');
    const [first, second] = partsOf(augmentUserDataWithCa(user, KEY));
    expect(first?.headers['content-type']).to.match(/^text\/x-shellscript/);
    expect(first?.body.equals(user)).to.equal(true);
    regentPart(second);
  });

  it('no user data: the archive holds only the CA part', () => {
    const parts = partsOf(augmentUserDataWithCa(undefined, KEY));
    expect(parts).to.have.length(1);
    expect(regentPart(parts[0]).write_files[0]?.content).to.equal(`${KEY}\n`);
  });

  it('a payload that is MIME multipart already is nested as it is', () => {
    const inner = 'Content-Type: multipart/mixed; boundary="inner"\r\nMIME-Version: 1.0\r\n\r\n--inner\r\nContent-Type: text/x-shellscript\r\n\r\n#!/bin/sh\necho hi\r\n--inner--\r\n';
    const doc = augmentUserDataWithCa(Buffer.from(inner), KEY);
    expect(doc).to.contain(inner);
    const [first, second] = partsOf(doc);
    expect(first?.headers['content-type']).to.equal('multipart/mixed; boundary="inner"');
    regentPart(second);
  });

  it('gzip cannot be augmented (the API refuses it before it is stored; the provider refuses again)', () => {
    expect(() => augmentUserDataWithCa(gzipSync(Buffer.from('#cloud-config\n')), KEY)).to.throw(UnaugmentableUserData);
  });

  it('the same inputs give the same bytes (a retried create sends what the first sent)', () => {
    const user = Buffer.from('#cloud-config\n{}\n');
    expect(augmentUserDataWithCa(user, KEY)).to.equal(augmentUserDataWithCa(user, KEY));
    expect(augmentUserDataWithCa(user, KEY)).to.not.equal(augmentUserDataWithCa(user, KEY.replace('user-ca', 'rotated')));
  });
});
