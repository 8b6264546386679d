/**
 * Provider-create gates, the rule (src/controllers/server/create-gates.ts) and its derivations
 * (projections/server-create-gates.ts): pending gates hold back only a create not yet decided; the remaining
 * list is the spec's gates minus the satisfied records (never the stored list); status renders the wait as
 * ProviderCreateGatesPending, provisioning.
 */
import { expect } from 'chai';
import { createGatesPassed } from '../../src/controllers/server/create-gates.js';
import { DesiredUnresolvable } from '../../src/provider/errors.js';
import { remainingCreateGates, renderRemainingCreateGates } from '../../projections/server-create-gates.js';
import { renderServerResource } from '../../projections/server-resource-status.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import type { Server } from '../../src/resources/index.js';

const context = (over: Partial<LifecycleContext> = {}): LifecycleContext => ({
  resourceId: null, createAttempts: 0, createdForGeneration: null, failedGeneration: null, lastError: null, createFailure: null,
  specProblems: null, unresolvable: null, decidedGeneration: null, deleteAttempts: 0, lastDeleteAt: null, deleteRefusal: null, ...over,
});
const server = (status: Server['status'] = {}, gates = ['fabric', 'dns']): Server =>
  ({
    apiVersion: 'regent.dev/v1alpha1',
    kind: 'Server',
    metadata: { name: 'web-1', namespace: 'default', uid: '00000000-0000-4000-8000-000000000001', generation: 1 },
    spec: { name: 'web-1', image: { name: 'ubuntu' }, flavor: { name: 'm1.small' }, networkID: 'net-a', sshInjection: 'none', ...(gates.length ? { providerCreateGates: gates.map((name) => ({ name })) } : {}) },
    status,
  }) as unknown as Server;
const fabric = { name: 'fabric', satisfied: true, actor: 'svc:fabric', reason: 'PortsProgrammed', message: 'secret-ish detail', satisfiedAt: '2026-12-02T05:00:00Z' };
const dns = { name: 'dns', satisfied: true, actor: 'svc:dns', reason: 'Published', satisfiedAt: '2026-12-02T05:01:00Z' };
const absent = { state: 'absent', context: context() };

const thrown = (f: () => unknown): DesiredUnresolvable => {
  try {
    f();
  } catch (error) {
    if (error instanceof DesiredUnresolvable) return error;
    throw error;
  }
  throw new Error('did not throw');
};

describe('controller: provider-create gates', () => {
  it('before the first create, a pending gate makes the request unresolvable (ProviderCreateGatesPending), naming what remains and who satisfied the rest', () => {
    const none = thrown(() => createGatesPassed(server(), absent));
    expect(none.reason).to.equal('ProviderCreateGatesPending');
    expect(none.message).to.equal('2 of 2 provider-create gates not satisfied: fabric, dns');
    const one = thrown(() => createGatesPassed(server({ providerCreateGates: [fabric] }), absent));
    expect(one.message).to.equal('1 of 2 provider-create gates not satisfied: dns; satisfied: fabric (by svc:fabric at 2026-12-02T05:00:00Z)');
    expect(one.message).to.not.include('secret-ish');
  });

  it('every gate satisfied: the create request records who satisfied each and when (not the reason or message)', () => {
    expect(createGatesPassed(server({ providerCreateGates: [dns, fabric] }), absent)).to.deep.equal({
      providerCreateGates: [
        { name: 'fabric', actor: 'svc:fabric', satisfiedAt: '2026-12-02T05:00:00Z' },
        { name: 'dns', actor: 'svc:dns', satisfiedAt: '2026-12-02T05:01:00Z' },
      ],
    });
  });

  it('a record that is not satisfied, or for a gate the spec does not declare, counts for nothing; the stored remaining list is never trusted', () => {
    expect(thrown(() => createGatesPassed(server({ providerCreateGates: [{ name: 'fabric', satisfied: false }, { ...dns, name: 'storage' }] }), absent)).message).to.include('fabric, dns');
    expect(thrown(() => createGatesPassed(server({ remainingProviderCreateGates: [] }), absent)).reason).to.equal('ProviderCreateGatesPending');
  });

  it('gates are create-time: a create already decided, a server created or adopted is never held back', () => {
    for (const lifecycle of [
      { state: 'creating', context: context({ createAttempts: 1 }) },
      { state: 'present', context: context({ resourceId: 'nova-1' }) },
      { state: 'failed', context: context({ createAttempts: 1, failedGeneration: 1 }) },
      { state: 'absent', context: context({ resourceId: 'nova-1' }) },
    ]) expect(() => createGatesPassed(server(), lifecycle), lifecycle.state).to.not.throw();
    expect(createGatesPassed(server(), { state: 'present', context: context({ resourceId: 'nova-1' }) })).to.deep.equal({});
  });

  it('a Server without gates adds nothing and is never held', () => {
    expect(createGatesPassed(server({}, []), absent)).to.deep.equal({});
  });

  it('remaining: the spec order minus satisfied records; rendered only when gates are declared or a list is stored', () => {
    expect(remainingCreateGates(server().spec, { providerCreateGates: [dns] })).to.deep.equal(['fabric']);
    expect(renderRemainingCreateGates(server().spec, { remainingProviderCreateGates: ['fabric', 'dns'], providerCreateGates: [fabric, dns] })).to.deep.equal([]);
    expect(renderRemainingCreateGates(server({}, []).spec, {})).to.equal(undefined);
  });

  it('status: Available=False ProviderCreateGatesPending, provisioningStatus provisioning (a wait, not an error)', () => {
    const status = renderServerResource({
      lifecycle: { state: 'absent', context: context({ decidedGeneration: 1, unresolvable: { generation: 1, reason: 'ProviderCreateGatesPending', message: '1 of 2 provider-create gates not satisfied: dns' } }) },
      rebuild: undefined,
      generation: 1,
      at: '2026-12-02T05:00:00Z',
    });
    expect(status.provisioningStatus).to.equal('provisioning');
    const available = status.conditions.find((c) => c.type === 'Available');
    expect(available).to.include({ status: 'False', reason: 'ProviderCreateGatesPending' });
    expect(available?.message).to.equal('waiting for provider-create gates before the Nova create (re-checked every 10 s): 1 of 2 provider-create gates not satisfied: dns');
  });
});
