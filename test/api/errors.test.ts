import { expect } from 'chai';
import fc from 'fast-check';
import { IMAGE, startApiRig, v2Body, type ApiRig } from './rig.js';

interface ErrorReply {
  error: string;
  error_description: string;
  request_id: string;
}

describe('api: errors and bad input', () => {
  let rig: ApiRig;
  before(async () => (rig = await startApiRig({ bodyLimit: 8 * 1024 })));
  after(async () => rig.close());

  const nothingPersisted = async () => {
    expect(await rig.servers(), 'servers').to.have.length(0);
    expect(await rig.events.readAll(), 'events').to.have.length(0);
  };

  const rejected = async (status: number, request: { raw?: string; body?: unknown; contentType?: string }, field?: string) => {
    const reply = await rig.call('POST', '/api/v2/servers', request);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
    const body = reply.body as ErrorReply;
    expect(Object.keys(body).sort()).to.deep.equal(['error', 'error_description', 'request_id']);
    expect(body.request_id).to.equal(reply.headers.get('x-request-id'));
    if (field) expect(body.error_description).to.contain(field);
    await nothingPersisted();
    return body;
  };

  it('malformed JSON → 400 invalid_request', async () => {
    const body = await rejected(400, { raw: '{"metadata": {"name": "web-1"}, "spec": ' });
    expect(body.error).to.equal('invalid_request');
  });

  it('an unknown field → 400 naming it', async () => {
    await rejected(400, { raw: JSON.stringify({ metadata: { name: 'web-1' }, spec: { networkId: 'net-a', flavorId: 'm1.small', imageId: IMAGE, colour: 'blue' } }) }, 'spec.colour');
  });

  it('an unknown top-level field → 400 naming it', async () => {
    await rejected(400, { raw: JSON.stringify({ ...v2Body('web-1'), status: {} }) }, '"status"');
  });

  it('a wrong type → 400 naming the field', async () => {
    await rejected(400, { raw: JSON.stringify(v2Body('web-1', { flavorId: 7 })) }, 'spec.flavorId');
    await rejected(400, { raw: JSON.stringify(v2Body('web-1', { securityGroups: 'sg-1' })) }, 'spec.securityGroups');
  });

  it('a missing required field → 400 naming it', async () => {
    await rejected(400, { raw: JSON.stringify({ metadata: { name: 'web-1' }, spec: { networkId: 'net-a', imageId: IMAGE } }) }, 'spec.flavorId');
  });

  it('an empty body, a body that is not an object, a __proto__ key → 400', async () => {
    await rejected(400, { raw: '' });
    await rejected(400, { raw: '[]' });
    await rejected(400, { raw: '{"__proto__": {"admin": true}, "metadata": {"name": "x"}}' });
  });

  it('a body over the size limit → 413 request_entity_too_large', async () => {
    const body = await rejected(413, { raw: JSON.stringify(v2Body('web-1', { userData: 'A'.repeat(16 * 1024) })) });
    expect(body.error).to.equal('request_entity_too_large');
  });

  it('a body that is not JSON → 415', async () => {
    await rejected(415, { raw: 'name=web-1', contentType: 'application/x-www-form-urlencoded' });
  });

  it('update: the same rejections leave the stored server untouched', async () => {
    const created = await rig.call('POST', '/api/v2/servers', { body: v2Body('keep-1') });
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    const before = await rig.source.get('Server', 'default', id);
    const eventsBefore = (await rig.events.readAll()).length;
    for (const raw of ['{', JSON.stringify(v2Body('keep-1', { extra: 1 })), JSON.stringify(v2Body('keep-1', { imageId: 5 }))]) {
      const reply = await rig.call('PUT', `/api/v2/servers/${id}`, { raw });
      expect(reply.status, raw).to.equal(400);
    }
    expect((await rig.source.get('Server', 'default', id))?.metadata.resourceVersion).to.equal(before?.metadata.resourceVersion);
    expect(await rig.events.readAll()).to.have.length(eventsBefore);
    expect((await rig.call('DELETE', `/api/v2/servers/${id}`)).status).to.equal(202);
  });
});

describe('api: a property-based fuzzer over request bodies', () => {
  let rig: ApiRig;
  before(async () => (rig = await startApiRig({ bodyLimit: 8 * 1024 })));
  after(async () => rig.close());

  const valid = { networkId: 'net-a', flavorId: 'm1.small', imageId: IMAGE };
  /** Mostly a valid value, sometimes a bad one of the right shape, sometimes any JSON at all. */
  const field = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown> = fc.jsonValue()) =>
    fc.oneof({ weight: 10, arbitrary: good }, { weight: 1, arbitrary: bad }, { weight: 1, arbitrary: fc.jsonValue() });
  const spec = fc.record(
    {
      networkId: field(fc.constantFrom('net-a', 'net-b'), fc.constantFrom('net-zz', 'NET', '')),
      flavorId: field(fc.constantFrom('m1.small'), fc.constantFrom('m1.large', '')),
      imageId: field(fc.constantFrom(IMAGE, '22222222-2222-4222-8222-222222222222'), fc.constantFrom('not-a-uuid', '')),
      userData: field(fc.string({ maxLength: 400 }).map((text) => Buffer.from(text).toString('base64')), fc.constantFrom('not base64!', '//79/A==', 'A'.repeat(70000))),
      sshInjection: field(fc.constantFrom('identityKeypair', 'none'), fc.constantFrom('ca', 'bogus')),
      securityGroups: field(fc.uniqueArray(fc.constantFrom('sg-1', 'sg-2'), { maxLength: 2 }), fc.constantFrom(['SG'], ['sg-1', 'sg-1'])),
      infrastructureRef: field(fc.record({ host: fc.constantFrom('compute-1') }), fc.constantFrom({ host: '' }, { host: 'h', extra: 1 })),
      providerCreateGates: field(fc.uniqueArray(fc.record({ name: fc.constantFrom('fabric', 'dns') }), { maxLength: 2, selector: (g) => g.name }), fc.constantFrom([{ name: 'Bad' }], [{ name: 'dns' }, { name: 'dns' }])),
    },
    { requiredKeys: [] },
  );
  const bodies = fc.oneof(
    { weight: 12, arbitrary: fc.record({ metadata: field(fc.record({ name: fc.oneof(fc.constant('seed-1'), fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/)) }), fc.constantFrom({ name: 'Web' }, { name: '' }, {})), spec: field(spec.map((s) => ({ ...valid, ...s }))) }).map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.record({ metadata: fc.constant({ name: 'seed-1' }), spec: fc.constant(valid), extra: fc.jsonValue() }).map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(v2Body('big', { userData: 'A'.repeat(10 * 1024) }))) },
  );


  it('finds no 5xx and nothing persisted from a rejection (POST and PUT)', async () => {
    const seed = await rig.call('POST', '/api/v2/servers', { body: v2Body('seed-1') });
    const seedId = (seed.body as { metadata: { id: string } }).metadata.id;
    const snapshot = async () => ({ servers: JSON.stringify((await rig.source.list('Server')).items), events: (await rig.events.readAll()).length });
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(bodies, fc.boolean(), async (raw, put) => {
        const before = await snapshot();
        const reply = put ? await rig.call('PUT', `/api/v2/servers/${seedId}`, { raw }) : await rig.call('POST', '/api/v2/servers', { raw });
        expect(reply.status, `${raw} → ${JSON.stringify(reply.body)}`).to.be.below(500);
        if (reply.status >= 400) expect(await snapshot(), raw).to.deep.equal(before);
        else accepted += 1;
      }),
      // Two known-good bodies run first, whatever the seed: the accepted path is always exercised.
      { numRuns: 300, examples: [[JSON.stringify(v2Body('web-2')), false], [JSON.stringify(v2Body('seed-1', { userData: Buffer.from('#cloud-config\n').toString('base64') })), true]] },
    );
    expect(accepted, 'some bodies were accepted').to.be.greaterThan(0);
  });
});
