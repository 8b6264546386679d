/**
 * The provisioning part of status from the lifecycle (projections/lifecycle-status.ts), case by case,
 * and when a lifecycle pass looks again while a delete is standing (src/controllers/lifecycle-pass.ts).
 * (Kept next to the pass that parks with the same reason and message.)
 */
import { expect } from 'chai';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import { lifecycleAvailability } from '../../projections/lifecycle-status.js';
import { deleteRequeueMs } from '../../src/controllers/lifecycle-pass.js';

const base: LifecycleContext = {
  resourceId: 'nova-1',
  createAttempts: 1,
  createdForGeneration: 1,
  failedGeneration: null,
  lastError: null,
  createFailure: null,
  specProblems: null,
  unresolvable: null,
  decidedGeneration: 1,
  deleteAttempts: 0,
  lastDeleteAt: null,
  deleteRefusal: null,
};
const view = (state: string, context: Partial<LifecycleContext> = {}) => lifecycleAvailability({ state, context: { ...base, ...context } }, 'Nova server');

describe('lifecycle status: every cause reaches Available with a reason naming it', () => {
  it('a 403 or 413 whose fault names a quota or limit is QuotaExceeded; other refusals are CreateRejected, with the cloud message and the HTTP status', () => {
    const rejected = (status: number, fault: string | null) => view('failed', { createFailure: { kind: 'rejected', status, reason: 'x', fault } })?.available;
    expect(rejected(403, 'Quota exceeded for cores: Requested 8, but already used 20 of 20 cores')).to.include({ reason: 'QuotaExceeded', message: 'Nova refused to create the server: Quota exceeded for cores: Requested 8, but already used 20 of 20 cores (HTTP 403)' });
    expect(rejected(413, 'Maximum number of ports exceeded (limit 10)')?.reason).to.equal('QuotaExceeded');
    expect(rejected(403, 'Policy doesn\'t allow os_compute_api:servers:create to be performed.')?.reason).to.equal('CreateRejected');
    expect(rejected(400, 'Invalid flavorRef provided.')).to.include({ reason: 'CreateRejected', message: 'Nova refused to create the server: Invalid flavorRef provided. (HTTP 400)' });
    expect(rejected(400, null)?.message).to.equal('Nova refused to create the server: x (HTTP 400)');
    expect(view('failed', { createFailure: { kind: 'rejected', status: 400, reason: 'x', fault: 'f' } })?.provisioningStatus).to.equal('error');
  });

  it('L6 retries exhausted: CreateRetriesExhausted names the bound and the last Nova fault, capped at 300 characters', () => {
    const r = view('failed', { createFailure: { kind: 'retriesExhausted', attempts: 3, fault: 'x'.repeat(400) } });
    expect(r?.provisioningStatus).to.equal('error');
    expect(r?.available.reason).to.equal('CreateRetriesExhausted');
    expect(r?.available.message).to.equal(`Nova put the server in ERROR before it ever booted, 3 times (the create bound); last Nova fault: ${'x'.repeat(300)}…`);
    expect(view('failed', { createFailure: { kind: 'retriesExhausted', attempts: 3, fault: null } })?.available.message).to.match(/last Nova fault: none reported$/);
  });

  it('L9 an unresolvable desired request is Available=False with its own reason, before any state', () => {
    const r = view('present', { unresolvable: { generation: 2, reason: 'FlavorAmbiguous', message: "2 Nova flavors are named exactly 'm1.small' (ids a, b); name one by id" } });
    expect(r?.available).to.include({ status: 'False', reason: 'FlavorAmbiguous', message: "the spec cannot be resolved: 2 Nova flavors are named exactly 'm1.small' (ids a, b); name one by id" });
    expect(r?.provisioningStatus).to.equal('error');
  });

  it('L8 deleting: Deprovisioning for the first request; DeleteRetrying once one was refused or re-sent, naming the count and the last refusal', () => {
    expect(view('deleting', { deleteAttempts: 1, lastDeleteAt: '2026-01-01T00:00:00Z' })?.available.reason).to.equal('Deprovisioning');
    expect(view('deleting', { deleteAttempts: 3 })?.available).to.include({ reason: 'DeleteRetrying', message: 'sent 3 delete requests for the server; Nova has not deleted it yet; re-sending with backoff until it is gone' });
    const refused = view('deleting', { deleteAttempts: 1, deleteRefusal: { status: 409, reason: 'conflict', fault: 'Instance is locked' } });
    expect(refused?.available.message).to.equal('sent 1 delete request for the server; Nova refused the last: Instance is locked (HTTP 409); re-sending with backoff until it is gone');
    expect(refused?.provisioningStatus).to.equal('deprovisioning');
    expect(view('recreating', { deleteAttempts: 2 })?.available.reason).to.equal('DeleteRetrying');
    expect(view('recreating', { deleteAttempts: 1 })).to.equal(undefined);
  });

  it('the Network speaks as Neutron', () => {
    const r = lifecycleAvailability({ state: 'deleting', context: { ...base, deleteAttempts: 2 } }, 'Neutron network');
    expect(r?.available.message).to.match(/^sent 2 delete requests for the network; Neutron has not deleted it yet/);
  });
});

describe('lifecycle pass: when to look again while a delete is standing', () => {
  const t0 = Date.UTC(2026, 0, 1);
  const ctx = (deleteAttempts: number, lastDeleteAt: string | null) => ({ ...base, deleteAttempts, lastDeleteAt });
  const at = (seconds: number) => new Date(t0 + seconds * 1000);
  it('every 2 s while the last request is recent, then not before the next retry is due', () => {
    const c = ctx(1, at(0).toISOString());
    expect(deleteRequeueMs(c, at(1))).to.equal(2_000);
    expect(deleteRequeueMs(c, at(9))).to.equal(2_000);
    expect(deleteRequeueMs(c, at(11))).to.equal(4_000);
    expect(deleteRequeueMs(ctx(2, at(0).toISOString()), at(12))).to.equal(18_000);
    expect(deleteRequeueMs(c, at(20))).to.equal(2_000); // due but not re-sent (e.g. booted meanwhile): keep observing
  });
  it('without a known time of the last request: every 2 s', () => {
    expect(deleteRequeueMs(ctx(1, null), at(0))).to.equal(2_000);
  });
});
