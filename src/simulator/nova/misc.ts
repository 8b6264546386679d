// Keypairs, server groups, limits, availability zones (quota sets: quotas.ts).
import { requireAdmin, requireWriter } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import { isoMicros, md5, uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optStr, optStrList, reqStr } from '../validate.js';
import { generateKeyPairSync } from 'node:crypto';
import { quotaOf } from './create.js';
import { usageOf } from './lifecycle.js';
import { keypairKey } from './model.js';
import type { Keypair, ServerGroup } from './model.js';

function fingerprint(publicKey: string): string {
  const b64 = publicKey.trim().split(/\s+/)[1] ?? publicKey;
  return md5(Buffer.from(b64, 'base64')).match(/../g)?.join(':') ?? '';
}

function keypairView(ctx: Ctx, k: Keypair, detail: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name: k.name, public_key: k.publicKey, fingerprint: k.fingerprint };
  if (atLeast(ctx.mv, '2.2')) out.type = k.type;
  if (detail) Object.assign(out, { user_id: k.userId, id: k.id, created_at: isoMicros(k.created), deleted: false, deleted_at: null, updated_at: null });
  return out;
}

function keypairUser(ctx: Ctx): string {
  const u = atLeast(ctx.mv, '2.10') ? ctx.q('user_id') : undefined;
  if (u !== undefined && u !== ctx.auth.userId) requireAdmin(ctx.auth, 'os_compute_api:os-keypairs:index');
  return u ?? ctx.auth.userId;
}

function findKeypair(ctx: Ctx): Keypair {
  const k = ctx.sim.nova.keypairs.get(keypairKey(keypairUser(ctx), ctx.p('name')));
  if (!k) throw new SimError(404, `Keypair ${ctx.p('name')} not found for user ${keypairUser(ctx)}`);
  return k;
}

function groupView(ctx: Ctx, g: ServerGroup): Record<string, unknown> {
  const out: Record<string, unknown> = { id: g.id, name: g.name, members: [...g.members] };
  if (atLeast(ctx.mv, '2.64')) Object.assign(out, { policy: g.policy, rules: { ...g.rules } });
  else Object.assign(out, { policies: [g.policy], metadata: {} });
  if (atLeast(ctx.mv, '2.13')) Object.assign(out, { project_id: g.projectId, user_id: g.userId });
  return out;
}

const POLICIES = ['affinity', 'anti-affinity', 'soft-affinity', 'soft-anti-affinity'];

export function registerMisc(r: Registrar): void {
  r.get('/os-keypairs', (ctx) => {
    const user = keypairUser(ctx);
    const rows = [...ctx.sim.nova.keypairs.values()].filter((k) => k.userId === user);
    return ok({ keypairs: rows.map((k) => ({ keypair: keypairView(ctx, k, false) })) });
  });
  r.get('/os-keypairs/:name', (ctx) => ok({ keypair: keypairView(ctx, findKeypair(ctx), true) }));
  r.post('/os-keypairs', (ctx) => {
    requireWriter(ctx.auth, 'os_compute_api:os-keypairs:create');
    const b = member(ctx.req.body, 'keypair');
    const name = reqStr(b, 'name', 255);
    if (!/^[A-Za-z0-9 _.@-]+$/.test(name)) throw new SimError(400, `Invalid input for field/attribute name. Value: ${name}. '${name}' does not match the keypair name pattern`);
    const userId = atLeast(ctx.mv, '2.10') ? optStr(b, 'user_id') ?? ctx.auth.userId : ctx.auth.userId;
    if (userId !== ctx.auth.userId) requireAdmin(ctx.auth, 'os_compute_api:os-keypairs:create');
    if (ctx.sim.nova.keypairs.has(keypairKey(userId, name))) throw new SimError(409, `Key pair '${name}' already exists.`);
    let publicKey = optStr(b, 'public_key');
    let privateKey: string | undefined;
    if (publicKey === undefined) {
      if (atLeast(ctx.mv, '2.92')) throw new SimError(400, "Invalid input for field/attribute keypair. 'public_key' is a required property");
      const pair = generateKeyPairSync('ed25519');
      privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const raw = pair.publicKey.export({ type: 'spki', format: 'der' }).subarray(-32);
      const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), raw]);
      publicKey = `ssh-ed25519 ${blob.toString('base64')} Generated-by-Nova`;
    } else if (!/^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-\S+) [A-Za-z0-9+/=]+/.test(publicKey.trim())) {
      throw new SimError(400, 'Keypair data is invalid: failed to generate fingerprint');
    }
    const k: Keypair = { name, userId, publicKey, fingerprint: fingerprint(publicKey), type: atLeast(ctx.mv, '2.2') ? optStr(b, 'type') ?? 'ssh' : 'ssh', created: ctx.sim.now(), id: ctx.sim.nova.nextKeypairId++ };
    ctx.sim.nova.keypairs.set(keypairKey(userId, name), k);
    const view = { ...keypairView(ctx, k, false), user_id: userId, ...(privateKey ? { private_key: privateKey } : {}) };
    return ok({ keypair: view }, atLeast(ctx.mv, '2.2') ? 201 : 200);
  });
  r.del('/os-keypairs/:name', (ctx) => {
    const k = findKeypair(ctx);
    ctx.sim.nova.keypairs.delete(keypairKey(k.userId, k.name));
    return noContent(atLeast(ctx.mv, '2.2') ? 204 : 202);
  });

  r.get('/os-server-groups', (ctx) => {
    // Nova's query schema (additionalProperties false): no name filter, as real Nova answers it (§22)
    for (const key of ctx.req.query.keys()) {
      if (!['all_projects', 'limit', 'offset'].includes(key)) throw new SimError(400, `Additional properties are not allowed ('${key}' was unexpected)`);
    }
    const all = ctx.auth.isAdmin && ctx.q('all_projects') !== undefined;
    const rows = [...ctx.sim.nova.serverGroups.values()].filter((g) => all || g.projectId === ctx.auth.projectId);
    return ok({ server_groups: rows.map((g) => groupView(ctx, g)) });
  });
  const findGroup = (ctx: Ctx): ServerGroup => {
    const g = ctx.sim.nova.serverGroups.get(ctx.p('id'));
    if (!g || (!ctx.auth.isAdmin && g.projectId !== ctx.auth.projectId)) throw new SimError(404, `Instance group ${ctx.p('id')} could not be found.`);
    return g;
  };
  r.get('/os-server-groups/:id', (ctx) => ok({ server_group: groupView(ctx, findGroup(ctx)) }));
  r.post('/os-server-groups', (ctx) => {
    requireWriter(ctx.auth, 'os_compute_api:os-server-groups:create');
    const b = member(ctx.req.body, 'server_group');
    const name = reqStr(b, 'name', 255);
    let policy: string | undefined;
    if (atLeast(ctx.mv, '2.64')) policy = optStr(b, 'policy');
    else policy = optStrList(b, 'policies')?.[0];
    if (!policy || !POLICIES.includes(policy)) throw new SimError(400, `Invalid input for field/attribute policy. Value: ${JSON.stringify(policy ?? null)}. ${JSON.stringify(policy ?? null)} is not one of ${JSON.stringify(POLICIES)}`);
    const projectId = ctx.auth.projectId ?? '';
    const count = [...ctx.sim.nova.serverGroups.values()].filter((g) => g.projectId === projectId).length;
    if (count >= (quotaOf(ctx.sim, projectId).server_groups ?? 10)) throw new SimError(403, 'Quota exceeded, too many server groups.');
    const g: ServerGroup = { id: uuid(), name, policy, rules: isObj(b.rules) ? b.rules : {}, members: [], projectId, userId: ctx.auth.userId };
    ctx.sim.nova.serverGroups.set(g.id, g);
    return ok({ server_group: groupView(ctx, g) });
  });
  r.del('/os-server-groups/:id', (ctx) => {
    ctx.sim.nova.serverGroups.delete(findGroup(ctx).id);
    return noContent();
  });

  r.get('/limits', (ctx) => {
    const pid = ctx.auth.projectId ?? '';
    const q = quotaOf(ctx.sim, pid);
    const u = usageOf(ctx.sim, pid);
    const groups = [...ctx.sim.nova.serverGroups.values()].filter((g) => g.projectId === pid).length;
    return ok({ limits: { rate: [], absolute: {
      maxTotalInstances: q.instances, maxTotalCores: q.cores, maxTotalRAMSize: q.ram, maxServerMeta: q.metadata_items,
      maxTotalKeypairs: q.key_pairs, maxServerGroups: q.server_groups, maxServerGroupMembers: q.server_group_members,
      totalInstancesUsed: u.instances, totalCoresUsed: u.cores, totalRAMUsed: u.ram, totalServerGroupsUsed: groups,
    } } });
  });
  r.get('/os-availability-zone', () => ok({ availabilityZoneInfo: [{ zoneName: 'nova', zoneState: { available: true }, hosts: null }] }));
}
