// Server state transitions on the sim clock. Each step checks the server's `gen` so a forced state
// (os-resetState, /_sim) or a delete cancels everything scheduled before it, as a real reset does.
import { SimError } from '../http.js';
import { uuid } from '../ids.js';
import type { Sim } from '../state.js';
import { complete, connect, removeAttachment } from '../cinder/attachments.js';
import { scheduleDelete as deleteVolume } from '../cinder/volumes.js';
import { activateNode, claimNode, deployNode, failNode, releaseNode } from '../ironic/routes.js';
import { bindPort, deletePort, unbindPort } from '../neutron/ports.js';
import { candidates, flavorRequest, removeConsumer, setAllocations } from '../placement/logic.js';
import { POWER } from './model.js';
import type { Server } from './model.js';

export const COMPUTE_HOST = 'sandbox';

export function touch(sim: Sim, s: Server): void {
  s.updated = sim.now();
}

/** Schedules `fn` for this server unless its state is forced or it is deleted meanwhile. */
export function step(sim: Sim, s: Server, ms: number, fn: () => void): void {
  const gen = s.gen;
  sim.after(ms, () => {
    if (s.gen !== gen || !sim.nova.servers.has(s.id)) return;
    fn();
    touch(sim, s);
  });
}

export function recordAction(sim: Sim, s: Server, action: string, requestId: string, userId: string): void {
  s.actions.push({ action, requestId, userId, projectId: s.projectId, startTime: sim.now(), message: null });
}

/** nova.api check_instance_state: vm_state first, then task_state, each a 409 conflictingRequest. */
export function checkState(s: Server, action: string, vm: string[] | null, task: Array<string | null> | null = [null]): void {
  if (vm && !vm.includes(s.vmState)) throw new SimError(409, `Cannot '${action}' instance ${s.id} while it is in vm_state ${s.vmState}`);
  if (task && !task.includes(s.taskState)) throw new SimError(409, `Cannot '${action}' instance ${s.id} while it is in task_state ${s.taskState ?? 'None'}`);
}

export function checkUnlocked(s: Server, admin: boolean): void {
  if (s.locked && !admin) throw new SimError(409, `Instance ${s.id} is locked`);
}

/** The first matching /_sim boot rule for this server and phase. */
export function bootRule(sim: Sim, s: Server, phase: 'boot' | 'rebuild'): { outcome: 'never' | 'error'; message?: string } | undefined {
  return sim.config.nova.bootRules.find((r) => {
    if ((r.phase ?? 'any') !== 'any' && r.phase !== phase) return false;
    try {
      return new RegExp(r.match).test(s.name);
    } catch {
      return false;
    }
  });
}

function fail(sim: Sim, s: Server, code: number, message: string): void {
  s.vmState = 'error';
  s.taskState = null;
  s.fault = { code, message, created: sim.now() };
}

export function usageOf(sim: Sim, projectId: string): { instances: number; cores: number; ram: number } {
  let u = sim.nova.usage.get(projectId);
  if (!u) sim.nova.usage.set(projectId, (u = { instances: 0, cores: 0, ram: 0 }));
  return u;
}

/** The resource providers a requested destination allows (all of them when none was requested). */
function allowed(sim: Sim, s: Server): (rpUuid: string) => boolean {
  if (s.requestedHost === null && s.requestedNode === null) return () => true;
  const ok = new Set([...sim.nova.hypervisors.values()]
    .filter((h) => (s.requestedHost === null || h.host === s.requestedHost) && (s.requestedNode === null || h.hostname === s.requestedNode))
    .map((h) => h.id));
  return (rp) => ok.has(rp);
}

function schedule(sim: Sim, s: Server): boolean {
  const req = flavorRequest(s.flavor);
  const fits = allowed(sim, s);
  const rp = candidates(sim, req.resources, req.traits).find((x) => fits(x.uuid));
  if (!rp) return false;
  setAllocations(sim, s.id, s.projectId, s.userId, new Map([[rp.uuid, req.resources]]));
  s.rpUuid = rp.uuid;
  const node = sim.ironic.nodes.get(rp.uuid);
  if (node) {
    s.host = 'ironic-compute';
    s.nodeName = node.uuid;
    claimNode(sim, node.uuid, s.id);
  } else {
    s.host = COMPUTE_HOST;
    s.nodeName = COMPUTE_HOST;
  }
  return true;
}

/** BUILD: scheduling → block_device_mapping → networking → spawning → ACTIVE (or ERROR / stuck). */
export function startBuild(sim: Sim, s: Server): void {
  const d = sim.delays.serverBuild;
  step(sim, s, d / 4, () => {
    if (!schedule(sim, s)) {
      fail(sim, s, 500, 'No valid host was found. ');
      return;
    }
    s.taskState = 'block_device_mapping';
    for (const b of s.bdms) {
      const a = sim.cinder.attachments.get(b.attachmentId);
      if (a) {
        connect(sim, a, { host: s.host, initiator: 'iqn.1993-08.org.debian:01:sandbox' });
        complete(sim, a, b.device, s.host);
      }
    }
    step(sim, s, d / 4, () => {
      s.taskState = 'networking';
      step(sim, s, d / 4, () => {
        s.taskState = 'spawning';
        if (s.host !== COMPUTE_HOST && s.nodeName) deployNode(sim, s.nodeName, d / 8);
        const rule = bootRule(sim, s, 'boot');
        if (rule?.outcome === 'never') return;
        step(sim, s, d / 4, () => {
          if (rule?.outcome === 'error') {
            const msg = rule.message ?? `Build of instance ${s.id} aborted: sandbox control: nova spawn failure requested for '${s.name}'`;
            fail(sim, s, 500, msg);
            if (s.nodeName && s.host !== COMPUTE_HOST) failNode(sim, s.nodeName, msg);
            return;
          }
          s.vmState = 'active';
          s.taskState = null;
          s.powerState = POWER.RUNNING;
          // launched_at is set when the guest first comes up and is never cleared afterwards.
          s.launchedAt ??= sim.now();
          for (const pid of s.portIds) bindPort(sim, pid, s.id, s.host ?? COMPUTE_HOST);
          if (s.nodeName && s.host !== COMPUTE_HOST) activateNode(sim, s.nodeName);
        });
      });
    });
  });
}

/** Removes the server and undoes its side effects in Neutron, Cinder, Placement and Ironic. */
export function destroy(sim: Sim, s: Server): void {
  sim.nova.servers.delete(s.id);
  s.gen++;
  for (const pid of s.portIds) {
    if (s.ownedPortIds.includes(pid)) deletePort(sim, pid);
    else unbindPort(sim, pid);
  }
  for (const b of s.bdms) {
    const a = sim.cinder.attachments.get(b.attachmentId);
    if (a) removeAttachment(sim, a);
    const v = sim.cinder.volumes.get(b.volumeId);
    if (v && b.deleteOnTermination) deleteVolume(sim, v);
  }
  removeConsumer(sim, s.id);
  if (s.nodeName && s.host !== COMPUTE_HOST) releaseNode(sim, s.nodeName, sim.delays.serverDelete);
  if (s.serverGroupId) {
    const g = sim.nova.serverGroups.get(s.serverGroupId);
    if (g) g.members = g.members.filter((m) => m !== s.id);
  }
  const u = usageOf(sim, s.projectId);
  u.instances--;
  u.cores -= s.flavor.vcpus;
  u.ram -= s.flavor.ram;
}

export function startDelete(sim: Sim, s: Server): void {
  s.taskState = 'deleting';
  touch(sim, s);
  s.gen++;
  const gen = s.gen;
  sim.after(sim.delays.serverDelete, () => {
    if (s.gen === gen && sim.nova.servers.has(s.id)) destroy(sim, s);
  });
}

/**
 * Rebuild accept. Real Nova writes image_ref and task_state=rebuilding in one update before the 202, so
 * no poll sees the new ref with an empty task_state — unless the rebuildRefBeforeTaskState knob opens
 * exactly that window, the failure mode a control plane's settlement logic must not be fooled by.
 * A server that was stopped reads ACTIVE (task empty) at the end of its rebuild, then powering-off, then
 * SHUTOFF, as on a real Zed compute.
 */
export function startRebuild(sim: Sim, s: Server, imageId: string): void {
  const wasStopped = s.vmState === 'stopped';
  const d = sim.delays.rebuildStep;
  s.gen++;
  s.imageId = imageId;
  const run = () => {
    s.taskState = 'rebuilding';
    step(sim, s, d, () => {
      s.taskState = 'rebuild_block_device_mapping';
      step(sim, s, d, () => {
        s.taskState = 'rebuild_spawning';
        const rule = bootRule(sim, s, 'rebuild');
        if (rule?.outcome === 'never') return;
        step(sim, s, d, () => {
          if (rule?.outcome === 'error') {
            fail(sim, s, 500, rule.message ?? `Rebuild of instance ${s.id} failed: sandbox control: nova spawn failure requested for '${s.name}'`);
            s.powerState = POWER.NOSTATE;
            return;
          }
          s.vmState = 'active';
          s.powerState = POWER.RUNNING;
          s.taskState = null;
          s.fault = null;
          s.launchedAt = sim.now();
          if (!wasStopped) return;
          // As Nova does for a server that was stopped: the rebuild's final save leaves it ACTIVE with an empty
          // task (briefly: converged on the new image), then it is powered off again to restore the original
          // state (ACTIVE/powering-off, then SHUTOFF). docs/simulator-differences.md #4.
          step(sim, s, Math.max(1, Math.round(sim.delays.serverAction / 10)), () => {
            s.taskState = 'powering-off';
            step(sim, s, sim.delays.serverAction, () => {
              s.vmState = 'stopped';
              s.powerState = POWER.SHUTDOWN;
              s.taskState = null;
            });
          });
        });
      });
    });
  };
  if (sim.config.nova.rebuildRefBeforeTaskState) {
    step(sim, s, sim.delays.rebuildRefLag, run);
  } else {
    run();
  }
  touch(sim, s);
}

/** A task that settles after one delay: powering-off, rebooting, pausing ... */
export function startTask(sim: Sim, s: Server, task: string, settle: () => void, ms = sim.delays.serverAction): void {
  s.gen++;
  s.taskState = task;
  touch(sim, s);
  step(sim, s, ms, () => {
    settle();
    s.taskState = null;
  });
}

export function newBdmId(): string {
  return uuid();
}
