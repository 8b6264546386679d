/**
 * Throwaway TLS material for the Nova database TLS tests, made with the openssl CLI in a temporary directory: a CA,
 * a server certificate for 127.0.0.1 and SERVER_NAME (not `localhost`, so a name check has something to refuse) and
 * a client certificate (CN `nova`) signed by it, and a second CA that signed nothing of these (to prove verification
 * is real). P-256 keys: quick to make.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SERVER_NAME = 'db.regent.test';

export interface TlsFixtures {
  dir: string;
  /** PEM texts. */
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  otherCa: string;
  /** Files, for a server's --ssl-* options. */
  files: { ca: string; serverCert: string; serverKey: string };
  remove(): void;
}

export const opensslAvailable = (): boolean => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

export const makeTlsFixtures = (): TlsFixtures => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string, cn: string) => openssl('req', '-x509', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.crt`), '-days', '2', '-subj', `/CN=${cn}`);
  const leaf = (name: string, cn: string, extensions: string) => {
    openssl('req', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', `/CN=${cn}`);
    writeFileSync(at(`${name}.ext`), extensions);
    openssl('x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at(`${name}.crt`), '-days', '2', '-extfile', at(`${name}.ext`));
  };
  ca('ca', 'regent-test-ca');
  ca('other-ca', 'regent-test-other-ca');
  leaf('server', '127.0.0.1', `subjectAltName=IP:127.0.0.1,DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth\n`);
  leaf('client', 'nova', 'extendedKeyUsage=clientAuth\n');
  const read = (name: string) => readFileSync(at(name), 'utf8');
  return {
    dir,
    ca: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    otherCa: read('other-ca.crt'),
    files: { ca: at('ca.crt'), serverCert: at('server.crt'), serverKey: at('server.key') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};
