/** Which pass outcomes say the cloud could not be seen (src/controllers/scope-reachability.ts; issue 24, item 2). */
import { expect } from 'chai';
import { ScopeNote, verdictOf } from '../../src/controllers/scope-reachability.js';
import { IdentityNotReady } from '../../src/provider/identity/sessions.js';
import { BadRequest, Conflict, RequestFailed, ServerError, Timeout, Unauthorized } from '../../src/openstack/errors.js';

describe('scope reachability verdicts', () => {
  it('a scope link that fails names that link: Network, Identity or Region', () => {
    expect(verdictOf(new IdentityNotReady('default/?', 'the Network net-a does not exist', { kind: 'Network', name: 'default/net-a', why: 'does not exist' }))).to.deep.equal({ kind: 'unreachable', dependency: { kind: 'Network', name: 'default/net-a' }, problem: 'NetworkMissing', message: 'does not exist' });
    expect(verdictOf(new IdentityNotReady('default/acme', 'is not realized yet'))).to.deep.include({ problem: 'IdentityNotReady', dependency: { kind: 'Identity', name: 'default/acme' } });
    expect(verdictOf(new IdentityNotReady('default/acme', 'its Region r cannot be used (x)', { kind: 'Region', name: 'default/r', why: 'x' }))).to.deep.include({ problem: 'RegionUnusable', dependency: { kind: 'Region', name: 'default/r' } });
  });

  it('refused credentials, no answer, a timeout, a 502/503 are the cloud not seen; a 400, 409 or 500 was an answer', () => {
    expect(verdictOf(new Unauthorized('refused', { service: 'compute', status: 401 }))).to.deep.include({ problem: 'CredentialsRefused', dependency: { kind: 'Cloud', name: 'compute' } });
    expect(verdictOf(new RequestFailed('no answer', { service: 'network' }, 'ECONNREFUSED'))).to.deep.include({ problem: 'CloudUnreachable' });
    expect(verdictOf(new Timeout('slow', { service: 'compute' }))).to.deep.include({ problem: 'CloudUnreachable' });
    expect(verdictOf(new ServerError('down', { service: 'compute', status: 503 }))).to.deep.include({ problem: 'CloudUnreachable' });
    expect(verdictOf(new ServerError('bug', { service: 'compute', status: 500 }))).to.equal(undefined);
    expect(verdictOf(new BadRequest('bad', { status: 400 }))).to.equal(undefined);
    expect(verdictOf(new Conflict('busy', { status: 409 }))).to.equal(undefined);
    expect(verdictOf(new Error('anything else'))).to.equal(undefined);
  });

  it('a pass note: nothing learned → no verdict; the scope resolved → reachable; a failure after it → unreachable', () => {
    expect(new ScopeNote().verdict()).to.equal(undefined);
    const ok = new ScopeNote();
    ok.scopeResolved();
    expect(ok.verdict()).to.deep.equal({ kind: 'reachable' });
    const broken = new ScopeNote();
    broken.scopeResolved();
    broken.failed(new RequestFailed('no answer', { service: 'compute' }, 'ECONNREFUSED'));
    expect(broken.verdict()?.kind).to.equal('unreachable');
    const answered = new ScopeNote();
    answered.scopeResolved();
    answered.failed(new Conflict('busy', { status: 409 }));
    expect(answered.verdict(), 'a refusal is an answer').to.deep.equal({ kind: 'reachable' });
  });
});
