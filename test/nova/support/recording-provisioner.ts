/**
 * The base of the e2e tests' recording DatabaseProvisioners: they record the plans they were handed; nothing is ever
 * absent (no claim is recorded), and a deprovision is recorded and answers that nothing was live.
 */
import type { BlockPlan, DatabaseProvisioner, DeprovisionOutcome, ProvisionOutcome, ProvisionedObject, SecretReader } from '../../../src/nova/database/port.js';

export abstract class RecordingProvisionerBase implements DatabaseProvisioner {
  plans: BlockPlan[] = [];
  deprovisioned: BlockPlan[] = [];
  abstract provision(namespace: string, plan: BlockPlan, read: SecretReader): Promise<ProvisionOutcome>;
  async absent(): Promise<ProvisionedObject[]> {
    return [];
  }
  async deprovision(_namespace: string, plan: BlockPlan): Promise<DeprovisionOutcome> {
    this.deprovisioned.push(plan);
    return { live: false, message: 'nothing was live' };
  }
}
