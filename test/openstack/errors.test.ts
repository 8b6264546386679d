import { expect } from 'chai';
import {
  BadRequest, Conflict, ConsistencyError, Forbidden, NotFound, OverLimit, RequestFailed, ServerError, Timeout, Unauthorized, UnexpectedStatus,
  errorForStatus, faultMessage, redact,
} from '../../src/openstack/errors.js';

describe('openstack errors', () => {
  const table: Array<[number, new (...args: never[]) => Error, string]> = [
    [400, BadRequest, 'bad-request'],
    [422, BadRequest, 'bad-request'],
    [401, Unauthorized, 'unauthorized'],
    [403, Forbidden, 'forbidden'],
    [404, NotFound, 'not-found'],
    [409, Conflict, 'conflict'],
    [413, OverLimit, 'over-limit'],
    [429, OverLimit, 'over-limit'],
    [500, ServerError, 'server-error'],
    [503, ServerError, 'server-error'],
    [504, Timeout, 'timeout'],
    [408, Timeout, 'timeout'],
    [302, UnexpectedStatus, 'unexpected-status'],
  ];
  for (const [status, cls, reason] of table) {
    it(`HTTP ${status} becomes ${cls.name} with reason ${reason}`, () => {
      const error = errorForStatus(status, { service: 'compute', method: 'GET', path: '/servers/x', requestId: 'req-1', fault: 'boom' });
      expect(error).to.be.instanceOf(cls);
      expect(error.reason).to.equal(reason);
      expect(error.status).to.equal(status);
      expect(error.path).to.equal('/servers/x');
      expect(error.requestId).to.equal('req-1');
      expect(error.message).to.contain('boom').and.contain('req-1').and.contain('GET /servers/x');
    });
  }

  describe('faultMessage reads every service fault shape', () => {
    const cases: Array<[string, unknown, string]> = [
      ['Nova', { conflictingRequest: { code: 409, message: "Cannot 'rebuild' instance while it is in task_state rebuilding" } }, "Cannot 'rebuild' instance while it is in task_state rebuilding"],
      ['Keystone', { error: { code: 401, message: 'The request you have made requires authentication.', title: 'Unauthorized' } }, 'The request you have made requires authentication.'],
      ['Neutron', { NeutronError: { type: 'NetworkNotFound', message: 'Network x could not be found.', detail: '' } }, 'Network x could not be found.'],
      ['Octavia', { faultcode: 'Client', faultstring: 'Load Balancer 1 is immutable and cannot be updated.', debuginfo: null }, 'Load Balancer 1 is immutable and cannot be updated.'],
      ['Placement', { errors: [{ status: 404, title: 'Not Found', detail: 'No resource provider with uuid x found' }] }, 'No resource provider with uuid x found'],
      ['Ironic', { error_message: '{"faultcode": "Client", "faultstring": "Node x could not be found.", "debuginfo": null}' }, 'Node x could not be found.'],
      ['Cinder', { overLimit: { code: 413, message: 'VolumeLimitExceeded: Maximum number of volumes allowed (0) exceeded' } }, 'VolumeLimitExceeded: Maximum number of volumes allowed (0) exceeded'],
      ['Glance HTML', '<html><body><h1>404 Not Found</h1>The resource could not be found.</body></html>', '404 Not Found The resource could not be found.'],
    ];
    for (const [service, body, message] of cases) {
      it(`${service}`, () => expect(faultMessage(body)).to.equal(message));
    }
    it('has no message for an empty body', () => {
      expect(faultMessage('')).to.equal(undefined);
      expect(faultMessage(undefined)).to.equal(undefined);
    });
  });

  it('redact removes every occurrence of each secret and ignores very short ones', () => {
    expect(redact('token gAAAAsecret and gAAAAsecret', ['gAAAAsecret'])).to.equal('token [REDACTED] and [REDACTED]');
    expect(redact('a b c', ['a'])).to.equal('a b c');
  });

  it('toJSON carries the safe fields only', () => {
    const error = new ConsistencyError('server', 'web', ['a', 'b'], { service: 'compute', method: 'GET', path: '/servers/detail' });
    const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(json).to.include({ name: 'ConsistencyError', reason: 'duplicate-name', resourceKind: 'server', lookupName: 'web', path: '/servers/detail' });
    expect(json.ids).to.deep.equal(['a', 'b']);
  });

  it('RequestFailed keeps the Node error code', () => {
    const error = new RequestFailed('request failed', { service: 'image', method: 'GET', path: '/v2/images' }, 'ECONNREFUSED');
    expect(error.code).to.equal('ECONNREFUSED');
    expect(error.message).to.contain('ECONNREFUSED');
  });
});
