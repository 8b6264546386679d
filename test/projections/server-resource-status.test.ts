/** A Server's whole status (projections/server-resource-status.ts): one reason and one phase that agree (issue 24, item 5). */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { renderServerResource } from '../../projections/server-resource-status.js';
import { renderServerStatus } from '../../projections/server-status.js';
import { serverRebuildDefinition, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import { serverLifecycleDefinition } from '../../machines/server-lifecycle.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';
import type { ServerRebuildStimulus } from '../../machines/server-rebuild/stimuli.js';
import { observed, STREAM } from '../machines/server-rebuild-facts.js';

const AT = '2026-11-29T10:00:00Z';
const lifecycleContext = (patch: Partial<LifecycleContext>): LifecycleContext => ({ ...(initialSnapshot(serverLifecycleDefinition, 'server-lifecycle-u1').context as LifecycleContext), ...patch });
const rebuildAfter = (...stimuli: ServerRebuildStimulus[]): ServerRebuildContext => {
  let s: AnyMachineSnapshot = initialSnapshot(serverRebuildDefinition, STREAM);
  for (const stimulus of stimuli) s = step(serverRebuildDefinition, s, stimulus).snapshot;
  return s.context as ServerRebuildContext;
};

describe('projection: a Server resource\'s status', () => {
  it('a missing image before any Nova server: Available ImageNotFound, provisioningStatus error and phase Error agree', () => {
    const status = renderServerResource({
      lifecycle: { state: 'absent', context: lifecycleContext({ unresolvable: { generation: 1, reason: 'ImageNotFound', message: "no Glance image has the id 'x'" }, decidedGeneration: 1 }) },
      rebuild: undefined,
      generation: 1,
      at: AT,
    });
    expect(status.conditions.find((c) => c.type === 'Available')).to.include({ status: 'False', reason: 'ImageNotFound' });
    expect(status.provisioningStatus).to.equal('error');
    expect(status.phase).to.equal('Error');
  });

  it('the bounded create spent (L2): Errored, and the message says the creates were attempted (one cut off by a crash after its decision may never have been sent), not sent', () => {
    const status = renderServerResource({
      lifecycle: { state: 'failed', context: lifecycleContext({ createAttempts: 3, createFailure: { kind: 'attemptsExhausted', attempts: 3 }, decidedGeneration: 1 }) },
      rebuild: undefined,
      generation: 1,
      at: AT,
    });
    expect(status.conditions.find((c) => c.type === 'Available')).to.include({ status: 'False', reason: 'Errored', message: '3 creates were attempted, but the Nova server never appeared' });
    expect(status.phase).to.equal('Error');
  });

  it('waiting to create is Pending; being deleted without a Nova server is Deleting', () => {
    expect(renderServerResource({ lifecycle: { state: 'absent', context: lifecycleContext({}) }, rebuild: undefined, generation: 1, at: AT }).phase).to.equal('Pending');
    expect(renderServerResource({ lifecycle: { state: 'deleting', context: lifecycleContext({ decidedGeneration: 1 }) }, rebuild: undefined, generation: 1, at: AT }).phase).to.equal('Deleting');
  });

  it('a server a pass saw booted (L10) and now read in ERROR is Errored, not "has not booted yet", even without the monitor\'s latch', () => {
    const errorNeverLatched = rebuildAfter(observed({ status: 'ERROR', launchedAt: { kind: 'never' } }));
    expect(errorNeverLatched.provisionedAt).to.equal(null);
    const plain = renderServerStatus({ context: errorNeverLatched, generation: 1, decidedGeneration: 1, at: AT });
    expect(plain.conditions.find((c) => c.type === 'Available')).to.include({ reason: 'Provisioning' });
    const booted = renderServerStatus({ context: errorNeverLatched, generation: 1, decidedGeneration: 1, at: AT, bootedByPass: true });
    expect(booted.conditions.find((c) => c.type === 'Available')).to.include({ status: 'False', reason: 'Errored' });
    expect(booted.provisioningStatus).to.equal('error');
  });
});
