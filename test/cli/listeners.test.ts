/**
 * Issue 18, "No open door": the audit pages (every event history of the region) are served only on
 * loopback by default; exposed, they need bearer tokens; /metrics, /healthz and /readyz stay on their own
 * listener. The plan (src/cli/commands/listeners.ts) and the started process.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopback, planListeners } from '../../src/cli/commands/listeners.js';
import { UsageError } from '../../src/errors/usage.js';
import { createTokenIssuer } from '../../src/api/auth.js';

describe('where regent serve listens (issue 18: no open door)', () => {
  it('loopback addresses: 127.0.0.0/8, ::1, localhost; nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) expect(isLoopback(h), h).to.equal(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.1', 'regent.example.com', '128.0.0.1']) expect(isLoopback(h), h).to.equal(false);
  });

  it('the default (loopback): one listener, the audit pages beside /metrics, no authentication', () => {
    expect(planListeners({ host: '127.0.0.1', port: 8080, auditPort: 8081 })).to.deep.equal({ ops: { host: '127.0.0.1', port: 8080 } });
  });

  it('an exposed operations listener (--host 0.0.0.0, a container) keeps the audit pages on loopback, on their own port', () => {
    expect(planListeners({ host: '0.0.0.0', port: 8080, auditPort: 8081 })).to.deep.equal({ ops: { host: '0.0.0.0', port: 8080 }, audit: { host: '127.0.0.1', port: 8081 } });
  });

  it('an exposed audit listener without a JWKS is refused: nothing listens', () => {
    expect(() => planListeners({ host: '0.0.0.0', port: 8080, auditHost: '0.0.0.0', auditPort: 8081 })).to.throw(UsageError, /--audit-host 0\.0\.0\.0 exposes every event history .* needs --audit-jwks/);
    expect(() => planListeners({ host: '127.0.0.1', port: 8080, auditHost: '10.1.2.3', auditPort: 8081 })).to.throw(UsageError);
  });

  it('an exposed audit listener with a JWKS: its own listener, authenticated; it cannot share --port', () => {
    expect(planListeners({ host: '0.0.0.0', port: 8080, auditHost: '0.0.0.0', auditPort: 8081, auditJwks: '/etc/regent/jwks.json' })).to.deep.equal({ ops: { host: '0.0.0.0', port: 8080 }, audit: { host: '0.0.0.0', port: 8081, jwks: '/etc/regent/jwks.json' } });
    expect(() => planListeners({ host: '0.0.0.0', port: 8080, auditHost: '0.0.0.0', auditPort: 8080, auditJwks: 'j' })).to.throw(UsageError, /a port of their own/);
  });

  it('a JWKS on loopback turns authentication on there too (its own listener)', () => {
    expect(planListeners({ host: '127.0.0.1', port: 8080, auditPort: 8081, auditJwks: 'j' })).to.deep.equal({ ops: { host: '127.0.0.1', port: 8080 }, audit: { host: '127.0.0.1', port: 8081, jwks: 'j' } });
  });

  describe('the started process, audit pages behind bearer tokens', function () {
    this.timeout(60_000);
    let dir: string;
    let child: ChildProcess | undefined;
    before(() => (dir = mkdtempSync(join(tmpdir(), 'regent-listeners-'))));
    after(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses an unauthenticated or unauthorised request with 401/403 and leaks nothing; a token granting read on region:audit sees the pages; /metrics and /healthz stay on the operations listener only', async () => {
      const issuer = await createTokenIssuer();
      const stranger = await createTokenIssuer();
      writeFileSync(join(dir, 'jwks.json'), JSON.stringify(issuer.jwks));
      child = spawn(process.execPath, ['bin/regent.js', '--store', `sqlite:${join(dir, 'regent.db')}`, 'start', '--port', '0', '--api-port', '0', '--audit-host', '127.0.0.1', '--audit-port', '0', '--audit-jwks', join(dir, 'jwks.json'), '--resources', `embedded:${join(dir, 'resources.db')}`], {
        env: { ...process.env, REGENT_LOG_LEVEL: 'error', OS_CLOUD: '', OS_AUTH_URL: '' },
      });
      const { ops, audit } = await new Promise<{ ops: string; audit: string }>((resolve, reject) => {
        let out = '';
        child!.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const a = /web UI and audit:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          const o = /metrics \/ health:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (a && o) resolve({ audit: a[1] as string, ops: o[1] as string });
        });
        child!.on('exit', (code) => reject(new Error(`regent start exited ${code}: ${out}`)));
      });
      expect(audit).to.not.equal(ops);
      // the examples ran: there are streams to leak
      const good = await issuer.sign({ sub: 'auditor', acl: { global: [{ name: 'region:audit', operations: ['read'] }] } });
      const streams = async () => (await (await fetch(`${audit}/api/streams`, { headers: { authorization: `Bearer ${good}` } })).text());
      const deadline = Date.now() + 30_000;
      while (!(await streams()).includes('server-lifecycle-') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      const known = /server-lifecycle-[0-9a-f-]{36}/.exec(await streams())?.[0] as string;
      expect(known, 'a stream exists').to.be.a('string');

      const asks = [`${audit}/`, `${audit}/streams/${encodeURIComponent(known)}`, `${audit}/api/streams`, `${audit}/no/such/page`];
      for (const url of asks) {
        const none = await fetch(url);
        expect(none.status, url).to.equal(401);
        expect(none.headers.get('www-authenticate')).to.match(/^Bearer realm="regent-audit"/);
        const body = await none.text();
        expect(body).to.not.include('server-lifecycle').and.not.include('<html');
        const forged = await fetch(url, { headers: { authorization: `Bearer ${await stranger.sign({ sub: 'x', acl: { global: [{ name: 'region:audit', operations: ['read'] }] } })}` } });
        expect(forged.status, `${url} with a token of another key`).to.equal(401);
        const noGrant = await fetch(url, { headers: { authorization: `Bearer ${await issuer.sign({ sub: 'y', acl: { global: [{ name: 'region:servers:v2', operations: ['read'] }] } })}` } });
        expect(noGrant.status, `${url} without region:audit`).to.equal(403);
        expect(await noGrant.text()).to.not.include('server-lifecycle');
      }
      const page = await fetch(`${audit}/streams/${encodeURIComponent(known)}`, { headers: { authorization: `Bearer ${good}` } });
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include(known);
      // the operations listener: probes and metrics, no audit pages
      expect((await fetch(`${ops}/healthz`)).status).to.equal(200);
      expect((await fetch(`${ops}/metrics`)).status).to.equal(200);
      expect((await fetch(`${ops}/streams/${encodeURIComponent(known)}`)).status).to.equal(404);
      expect(await (await fetch(`${ops}/api/streams`)).text()).to.not.include('server-lifecycle');
      // and the audit listener does not answer the probes
      expect((await fetch(`${audit}/metrics`, { headers: { authorization: `Bearer ${good}` } })).status).to.equal(404);
    });
  });
});
