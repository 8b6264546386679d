// POST /servers/{id}/action and remote consoles. One task at a time: any action whose state check
// fails answers 409 conflictingRequest, worded as Nova words it.
import { requireAdmin, requireWriter } from '../auth.js';
import { SimError, ok } from '../http.js';
import type { SimResponse } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, optStrMap } from '../validate.js';
import { checkMetadataKeys } from './metadata.js';
import type { Json } from '../validate.js';
import { createImage, imageVisible } from '../glance/images.js';
import { checkState, checkUnlocked, recordAction, startRebuild, startTask, step, touch } from './lifecycle.js';
import { POWER, keypairKey } from './model.js';
import type { Server } from './model.js';
import { findServer } from './servers.js';
import { serverView } from './view.js';

const REBUILD_KEYS: Array<[string, string]> = [
  ['imageRef', '2.1'], ['name', '2.1'], ['adminPass', '2.1'], ['metadata', '2.1'], ['preserve_ephemeral', '2.1'],
  ['OS-DCF:diskConfig', '2.1'], ['accessIPv4', '2.1'], ['accessIPv6', '2.1'], ['description', '2.19'], ['key_name', '2.54'],
  ['user_data', '2.57'], ['trusted_image_certificates', '2.63'], ['hostname', '2.90'],
];

function rebuild(ctx: Ctx, s: Server, arg: Json): SimResponse {
  for (const k of Object.keys(arg)) {
    const allowed = REBUILD_KEYS.find(([key]) => key === k);
    if (!allowed || !atLeast(ctx.mv, allowed[1])) {
      if (k === 'personality' && !atLeast(ctx.mv, '2.57')) continue;
      throw new SimError(400, `Invalid input for field/attribute rebuild. Value: ${JSON.stringify(arg)}. Additional properties are not allowed ('${k}' was unexpected)`);
    }
  }
  if (typeof arg.imageRef !== 'string') throw new SimError(400, `Invalid input for field/attribute rebuild. Value: ${JSON.stringify(arg)}. 'imageRef' is a required property`);
  const imageId = arg.imageRef.split('/').pop() ?? '';
  checkUnlocked(s, ctx.auth.isAdmin);
  checkState(s, 'rebuild', ['active', 'stopped', 'error']);
  const img = ctx.sim.glance.images.get(imageId);
  if (!img || !imageVisible(ctx.auth, img)) throw new SimError(400, 'Cannot find image for rebuild');
  if (img.status !== 'active') throw new SimError(400, `Image ${imageId} is not active.`);
  if (s.imageId === '' && !atLeast(ctx.mv, '2.93')) {
    throw new SimError(400, 'Unable to rebuild with a different image for a volume-backed server.');
  }
  if (typeof arg.key_name === 'string' && !ctx.sim.nova.keypairs.has(keypairKey(s.userId, arg.key_name))) throw new SimError(400, 'Invalid key_name provided.');
  const md = optStrMap(arg, 'metadata');
  if (md) checkMetadataKeys('metadata', md);
  if (typeof arg.name === 'string') s.name = arg.name;
  if (md) s.metadata = md;
  if ('description' in arg) s.description = typeof arg.description === 'string' ? arg.description : null;
  if ('key_name' in arg) s.keyName = typeof arg.key_name === 'string' ? arg.key_name : null;
  if ('user_data' in arg) s.userData = typeof arg.user_data === 'string' ? arg.user_data : null;
  recordAction(ctx.sim, s, 'rebuild', ctx.req.requestId, ctx.auth.userId);
  startRebuild(ctx.sim, s, imageId);
  const adminPass = typeof arg.adminPass === 'string' ? arg.adminPass : uuid().replace(/-/g, '').slice(0, 12);
  return ok({ server: { ...serverView(ctx, s, { withGroups: true }), adminPass } }, 202);
}

function reboot(ctx: Ctx, s: Server, arg: Json): SimResponse {
  const type = typeof arg.type === 'string' ? arg.type.toUpperCase() : '';
  if (type !== 'SOFT' && type !== 'HARD') {
    throw new SimError(400, `Invalid input for field/attribute type. Value: ${JSON.stringify(arg.type ?? null)}. ${JSON.stringify(arg.type ?? null)} is not one of ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']`);
  }
  checkUnlocked(s, ctx.auth.isAdmin);
  if (type === 'SOFT') checkState(s, 'reboot', ['active']);
  else checkState(s, 'reboot', ['active', 'stopped', 'paused', 'suspended', 'error'], [null, 'rebooting', 'reboot_pending', 'reboot_started', 'rebooting_hard', 'reboot_pending_hard', 'reboot_started_hard']);
  recordAction(ctx.sim, s, 'reboot', ctx.req.requestId, ctx.auth.userId);
  startTask(ctx.sim, s, type === 'SOFT' ? 'rebooting' : 'rebooting_hard', () => {
    s.vmState = 'active';
    s.powerState = POWER.RUNNING;
  });
  return { status: 202 };
}

function snapshot(ctx: Ctx, s: Server, arg: Json): SimResponse {
  if (typeof arg.name !== 'string' || !arg.name) throw new SimError(400, "Invalid input for field/attribute createImage. 'name' is a required property");
  checkState(s, 'createImage', ['active', 'stopped', 'paused', 'suspended']);
  const sim = ctx.sim;
  const props: Record<string, string> = {
    ...(optStrMap(arg, 'metadata') ?? {}), image_type: 'snapshot', instance_uuid: s.id, base_image_ref: s.imageId,
    user_id: ctx.auth.userId, owner_user_name: ctx.auth.userName, owner_project_name: ctx.auth.projectName ?? '', image_location: 'snapshot',
  };
  const base = sim.glance.images.get(s.imageId);
  const img = createImage(sim, { name: arg.name, owner: s.projectId, visibility: 'private', containerFormat: base?.containerFormat ?? 'bare', diskFormat: base?.diskFormat ?? 'raw', minDisk: s.flavor.disk, properties: props });
  recordAction(sim, s, 'createImage', ctx.req.requestId, ctx.auth.userId);
  const d = sim.delays.snapshot;
  s.gen++;
  s.taskState = 'image_snapshot';
  touch(sim, s);
  step(sim, s, d / 3, () => {
    s.taskState = 'image_pending_upload';
    img.status = 'saving';
    step(sim, s, d / 3, () => {
      s.taskState = 'image_uploading';
      step(sim, s, d / 3, () => {
        s.taskState = null;
        img.status = 'active';
        img.size = 1024;
        img.virtualSize = 1024;
        img.updated = sim.now();
      });
    });
  });
  if (atLeast(ctx.mv, '2.45')) return ok({ image_id: img.id }, 202);
  return { status: 202, headers: { Location: sim.url(`/compute/v2.1/images/${img.id}`) } };
}

function consoleOutput(ctx: Ctx, s: Server, arg: Json): SimResponse {
  if (s.vmState === 'building' || s.host === null) throw new SimError(409, `Instance ${s.id} is not ready`);
  const lines = [
    `[    0.000000] Linux version 6.1.0-sim (simulator) #1 SMP`, `[    0.120000] Command line: root=/dev/sda1 console=ttyS0`,
    `[    1.200000] cloud-init[512]: Cloud-init v. 23.1 running 'init' at ${new Date(s.launchedAt ?? ctx.sim.now()).toUTCString()}`,
    `[    2.400000] cloud-init[512]: ci-info: | eth0 | True | ${s.portIds.length ? 'up' : 'down'} |`,
    `${s.name} login: `,
  ];
  const length = typeof arg.length === 'number' ? arg.length : typeof arg.length === 'string' ? Number(arg.length) : -1;
  return ok({ output: (length >= 0 ? lines.slice(-length) : lines).join('\n') });
}

function consoleUrl(ctx: Ctx, protocol: string, type: string): string {
  const token = uuid();
  const path = type === 'spice-html5' ? 'spice_auto.html' : type === 'serial' ? '' : 'vnc_auto.html';
  return type === 'serial' ? `ws://127.0.0.1:6083/?token=${token}` : ctx.sim.url(`/${protocol}/${path}?path=%3Ftoken%3D${token}`);
}

function simpleTask(ctx: Ctx, s: Server, action: string, vm: string[], task: string, settle: () => void): SimResponse {
  checkUnlocked(s, ctx.auth.isAdmin);
  checkState(s, action, vm);
  recordAction(ctx.sim, s, action, ctx.req.requestId, ctx.auth.userId);
  startTask(ctx.sim, s, task, settle);
  return { status: 202 };
}

function dispatch(ctx: Ctx, s: Server, action: string, arg: Json): SimResponse {
  switch (action) {
    case 'rebuild': return rebuild(ctx, s, arg);
    case 'reboot': return reboot(ctx, s, arg);
    case 'os-stop': return simpleTask(ctx, s, 'stop', ['active', 'error'], 'powering-off', () => { s.vmState = 'stopped'; s.powerState = POWER.SHUTDOWN; });
    case 'os-start': return simpleTask(ctx, s, 'start', ['stopped'], 'powering-on', () => { s.vmState = 'active'; s.powerState = POWER.RUNNING; });
    case 'pause': return simpleTask(ctx, s, 'pause', ['active'], 'pausing', () => { s.vmState = 'paused'; s.powerState = POWER.PAUSED; });
    case 'unpause': return simpleTask(ctx, s, 'unpause', ['paused'], 'unpausing', () => { s.vmState = 'active'; s.powerState = POWER.RUNNING; });
    case 'suspend': return simpleTask(ctx, s, 'suspend', ['active'], 'suspending', () => { s.vmState = 'suspended'; s.powerState = POWER.SHUTDOWN; });
    case 'resume': return simpleTask(ctx, s, 'resume', ['suspended'], 'resuming', () => { s.vmState = 'active'; s.powerState = POWER.RUNNING; });
    case 'createImage': return snapshot(ctx, s, arg);
    case 'os-getConsoleOutput': return consoleOutput(ctx, s, arg);
    case 'os-getVNCConsole':
    case 'os-getSPICEConsole': {
      if (atLeast(ctx.mv, '2.6')) throw new SimError(404, 'The resource could not be found.');
      if (s.vmState !== 'active') throw new SimError(409, `Instance ${s.id} is not ready`);
      const type = typeof arg.type === 'string' ? arg.type : 'novnc';
      return ok({ console: { type, url: consoleUrl(ctx, action === 'os-getVNCConsole' ? 'vnc' : 'spice', type) } });
    }
    case 'os-resetState': {
      requireAdmin(ctx.auth, 'os_compute_api:os-admin-actions:reset_state');
      const state = arg.state;
      if (state !== 'active' && state !== 'error') throw new SimError(400, `Invalid input for field/attribute state. Value: ${JSON.stringify(state)}. ${JSON.stringify(state)} is not one of ['active', 'error']`);
      s.vmState = state;
      s.taskState = null;
      s.gen++;
      recordAction(ctx.sim, s, 'resetState', ctx.req.requestId, ctx.auth.userId);
      touch(ctx.sim, s);
      return { status: 202 };
    }
    case 'lock':
      s.locked = true;
      s.lockedReason = atLeast(ctx.mv, '2.73') && typeof arg.locked_reason === 'string' ? arg.locked_reason : null;
      touch(ctx.sim, s);
      return { status: 202 };
    case 'unlock':
      s.locked = false;
      s.lockedReason = null;
      touch(ctx.sim, s);
      return { status: 202 };
    case 'addSecurityGroup':
    case 'removeSecurityGroup': {
      const name = typeof arg.name === 'string' ? arg.name : '';
      if (!name) throw new SimError(400, "Invalid input for field/attribute name. 'name' is a required property");
      if (action === 'addSecurityGroup') {
        if (![...ctx.sim.neutron.securityGroups.values()].some((g) => g.projectId === s.projectId && (g.name === name || g.id === name))) throw new SimError(404, `Security group ${name} not found for project ${s.projectId}.`);
        if (!s.securityGroups.includes(name)) s.securityGroups.push(name);
      } else {
        if (!s.securityGroups.includes(name)) throw new SimError(400, `Security group ${name} not associated with the instance ${s.id}`);
        s.securityGroups = s.securityGroups.filter((g) => g !== name);
      }
      touch(ctx.sim, s);
      return { status: 202 };
    }
    case 'changePassword':
      checkState(s, 'changePassword', ['active']);
      return { status: 202 };
    default:
      throw new SimError(400, `There is no such action: ${action}`);
  }
}

export function registerActions(r: Registrar): void {
  r.post('/servers/:id/action', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    const b = ctx.req.body;
    if (!isObj(b) || Object.keys(b).length !== 1) throw new SimError(400, 'Malformed request body');
    const action = Object.keys(b)[0] as string;
    const raw = b[action];
    if (action !== 'os-resetState') requireWriter(ctx.auth, `os_compute_api:servers:${action}`);
    return dispatch(ctx, s, action, isObj(raw) ? raw : {});
  });
  r.post('/servers/:id/remote-consoles', (ctx) => {
    if (!atLeast(ctx.mv, '2.6')) throw new SimError(404, 'The resource could not be found.');
    const s = findServer(ctx, ctx.p('id'));
    const b = isObj(ctx.req.body) && isObj(ctx.req.body.remote_console) ? ctx.req.body.remote_console : null;
    const protocols: Record<string, string[]> = { vnc: ['novnc', 'xvpvnc'], spice: ['spice-html5'], rdp: ['rdp-html5'], serial: ['serial'], mks: ['webmks'] };
    const protocol = typeof b?.protocol === 'string' ? b.protocol : '';
    const type = typeof b?.type === 'string' ? b.type : '';
    if (!b || !protocols[protocol]) throw new SimError(400, `Invalid input for field/attribute protocol. Value: ${JSON.stringify(protocol)}. ${JSON.stringify(protocol)} is not one of ['vnc', 'spice', 'rdp', 'serial', 'mks']`);
    if (!protocols[protocol]?.includes(type)) throw new SimError(400, `Invalid input for field/attribute type. Value: ${JSON.stringify(type)}. Unsupported console type ${type} for protocol ${protocol}`);
    if (protocol !== 'vnc' && protocol !== 'serial') throw new SimError(400, `Unavailable console type ${protocol}.`);
    if (s.vmState !== 'active') throw new SimError(409, `Instance ${s.id} is not ready`);
    return ok({ remote_console: { protocol, type, url: consoleUrl(ctx, protocol, type) } });
  });
}
