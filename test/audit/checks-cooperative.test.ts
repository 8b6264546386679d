/**
 * The audit pages explore a machine in the serving process, which may also be the leader renewing its lease: the
 * exploration gives the event loop back while it runs (src/audit/checks/explore.ts runCooperatively), and reports
 * exactly what the one-go check reports.
 */
import { expect } from 'chai';
import { checkMachine, checkMachineCooperatively } from '../../src/audit/checks/rules.js';
import { lifecycleDefinition } from '../../machines/lifecycle.js';

describe('audit checks in a serving process', function () {
  this.timeout(120_000);
  it('timers run while a machine is explored, and the report equals the one-go check', async () => {
    // a fresh definition: nothing cached for it in this process
    const definition = lifecycleDefinition({ id: 'serverLifecycle', streamPrefix: 'server-lifecycle-', createEffect: 'nova.createServer', deleteEffect: 'nova.deleteServer', description: 'test copy', boots: true });
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks++;
      if (running) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const report = await checkMachineCooperatively(definition);
    running = false;
    // one go would let no timer run until the end: a handful of ticks at most
    expect(ticks, 'timers ran during the exploration').to.be.greaterThan(20);
    expect(report.edges).to.be.greaterThan(1_000);
    const again = lifecycleDefinition({ id: 'serverLifecycle', streamPrefix: 'server-lifecycle-', createEffect: 'nova.createServer', deleteEffect: 'nova.deleteServer', description: 'test copy', boots: true });
    expect(JSON.stringify(checkMachine(again))).to.equal(JSON.stringify(report));
  });
});
