/**
 * Volumes at once (issue 31): `count` Volume CRs applied at once, and each listed in one Server's `spec.volumes`, until
 * every Volume is Available and every Server's status shows its volume Attached. Correct means every volume attached,
 * with exactly one Nova attach POST per volume. The baseline is a bare client creating and attaching as many volumes to
 * servers seeded in another project (./raw-client.ts).
 */
import type { ControlPlane } from '../../src/app/control-plane.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { BenchSimulator } from './simulator.js';
import { applyAll, conditionOf, listWithStatus, serverManifest, VOLUME_CLASS, volumeManifest } from './plane.js';
import { now, waitFor } from './measure.js';
import { rawVolumes } from './raw-client.js';
import { serverName } from './mass-rebuild.js';

export const volumeName = (i: number): string => `data-${i}`;

export interface VolumesResult {
  volumes: number;
  settleMs: number;
  rawSettleMs: number;
  ratio: number;
  attachPosts: number;
  volumeCreates: number;
  problems: string[];
}

export const benchVolumes = async (plane: ControlPlane, sim: BenchSimulator, count: number, serversImage: string, raw: { session: OpenStackSession; serverIds: readonly string[] }, timeoutMs: number): Promise<VolumesResult> => {
  const problems: string[] = [];
  await sim.clearCalls();
  const start = now();
  const indexes = Array.from({ length: count }, (_, i) => i + 1);
  await applyAll(plane, [...indexes.map((i) => volumeManifest(volumeName(i))), ...indexes.map((i) => serverManifest(serverName(i), serversImage, volumeName(i)))]);
  let missing: string[] = [];
  await waitFor(async () => {
    const volumes = await listWithStatus(plane, 'Volume');
    const servers = new Map((await listWithStatus(plane, 'Server')).map((s) => [s.name, s] as const));
    missing = indexes.filter((i) => {
      const volume = volumes.find((v) => v.name === volumeName(i));
      const server = servers.get(serverName(i));
      return conditionOf(volume?.status, 'Available')?.status !== 'True' || !server?.status?.volumes?.some((v) => v.volumeID === volumeName(i) && v.state === 'Attached');
    }).map(volumeName);
    return missing.length === 0;
  }, timeoutMs, 500);
  const settleMs = now() - start;
  if (missing.length > 0) problems.push(`volumes: ${missing.length} of ${count} not available and attached after ${timeoutMs} ms (e.g. ${missing.slice(0, 3).join(', ')})`);
  const calls = await sim.calls({ method: 'POST' });
  const attachPosts = calls.filter((c) => c.path.endsWith('/os-volume_attachments') && c.status < 300).length;
  const volumeCreates = calls.filter((c) => /\/volumes$/.test(c.path) && c.status < 300).length;
  if (attachPosts !== count) problems.push(`volumes: ${attachPosts} Nova attach POSTs for ${count} volumes`);
  if (volumeCreates !== count) problems.push(`volumes: ${volumeCreates} Cinder creates for ${count} volumes`);
  const rawSettleMs = await rawVolumes(raw.session, raw.serverIds.slice(0, count), VOLUME_CLASS, timeoutMs);
  return { volumes: count, settleMs, rawSettleMs, ratio: settleMs / rawSettleMs, attachPosts, volumeCreates, problems };
};

