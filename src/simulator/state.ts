// The whole simulated cloud: one record store per service, the clock, the transition queue, the call
// log, injected faults and behaviour knobs. Services reach each other's records through this object
// (Nova creates Neutron ports and Cinder attachments the way the real services call each other).
import { CallLog } from './calls.js';
import type { SimClock } from './clock.js';
import { defaultConfig } from './config.js';
import type { SimConfig, SimDelays } from './config.js';
import { FaultSet } from './faults.js';
import { Scheduler } from './scheduler.js';
import { createCinderState } from './cinder/model.js';
import type { CinderState } from './cinder/model.js';
import { createGlanceState } from './glance/model.js';
import type { GlanceState } from './glance/model.js';
import { createIronicState } from './ironic/model.js';
import type { IronicState } from './ironic/model.js';
import { createKeystoneState } from './keystone/model.js';
import type { KeystoneState } from './keystone/model.js';
import { createNeutronState } from './neutron/model.js';
import type { NeutronState } from './neutron/model.js';
import { createNovaState } from './nova/model.js';
import type { NovaState } from './nova/model.js';
import { createOctaviaState } from './octavia/model.js';
import type { OctaviaState } from './octavia/model.js';
import { createPlacementState } from './placement/model.js';
import type { PlacementState } from './placement/model.js';

export class Sim {
  readonly scheduler: Scheduler;
  readonly calls = new CallLog();
  readonly faults = new FaultSet();
  config: SimConfig;
  baseUrl = '';
  keystone: KeystoneState = createKeystoneState();
  nova: NovaState = createNovaState();
  glance: GlanceState = createGlanceState();
  cinder: CinderState = createCinderState();
  neutron: NeutronState = createNeutronState();
  octavia: OctaviaState = createOctaviaState();
  placement: PlacementState = createPlacementState();
  ironic: IronicState = createIronicState();

  constructor(readonly clock: SimClock, private readonly initialDelays: Partial<SimDelays> = {}) {
    this.scheduler = new Scheduler(clock);
    this.config = defaultConfig(initialDelays);
  }

  get delays(): SimDelays {
    return this.config.delays;
  }

  /** Sim time for timestamps: the due time of the transition running now, else the clock. */
  now(): number {
    return this.scheduler.now();
  }

  after(ms: number, run: () => void): void {
    this.scheduler.after(ms, run);
  }

  /** Runs every transition that is due. Called before any read. */
  settle(): void {
    this.scheduler.settle();
  }

  /** Drops every record, pending transition, fault, call and knob. The caller seeds again. */
  wipe(): void {
    this.scheduler.clear();
    this.calls.clear();
    this.faults.clear();
    this.config = defaultConfig(this.initialDelays);
    this.keystone = createKeystoneState();
    this.nova = createNovaState();
    this.glance = createGlanceState();
    this.cinder = createCinderState();
    this.neutron = createNeutronState();
    this.octavia = createOctaviaState();
    this.placement = createPlacementState();
    this.ironic = createIronicState();
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }
}
