import { condition, objectOf, variant, type AgreementCase, type Json } from './case.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBf0Vr1k8mZXJ4S8b0m3v8x2Q1q2WmXl0w8p4r8e6x0N acme-user-ca';
const base = objectOf('SSHCertificateAuthority', { organizationID: 'acme', projectID: 'web', publicKey: KEY, description: 'user CA of the web team' });
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const sshCertificateAuthorityCases: AgreementCase[] = [
  { title: 'a CA of an organization and project with an ed25519 public key is valid', object: base, expect: 'valid' },
  { title: 'an RSA or ECDSA public key is valid, the comment optional', object: s((x) => (x.publicKey = 'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY=')), expect: 'valid' },
  { title: 'the public key is required', object: s((x) => delete x.publicKey), expect: ['spec.publicKey'] },
  { title: 'a private key is not a public key', object: s((x) => (x.publicKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----')), expect: ['spec.publicKey'] },
  { title: 'an unknown key type is refused', object: s((x) => (x.publicKey = 'ssh-dss AAAAB3NzaC1kc3MAAACBAP')), expect: ['spec.publicKey'] },
  { title: 'two keys on two lines are refused', object: s((x) => (x.publicKey = `${KEY}\n${KEY}`)), expect: ['spec.publicKey'] },
  { title: 'the organization ID is a DNS label', object: s((x) => (x.organizationID = 'Acme Corp')), expect: ['spec.organizationID'] },
  { title: 'the project ID is required', object: s((x) => delete x.projectID), expect: ['spec.projectID'] },
  { title: 'the key may be rotated', object: s((x) => (x.publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK9m rotated')), old: base, expect: 'valid' },
  { title: 'the organization is immutable', object: s((x) => (x.organizationID = 'other')), old: base, expect: ['spec.organizationID'] },
  { title: 'the project is immutable', object: s((x) => (x.projectID = 'other')), old: base, expect: ['spec.projectID'] },
  { title: 'a status with a fingerprint is valid', object: { ...base, status: { fingerprint: 'SHA256:abc', conditions: [condition('Available')] } }, expect: 'valid' },
];
