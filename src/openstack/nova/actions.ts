/**
 * Nova server actions (POST /servers/{id}/action). None is ever retried by the transport: a rebuild that timed out
 * may have been accepted, and a second accept would destroy the root disk again.
 *
 * Rebuild sends only `imageRef` unless the caller names other fields, and the options type has no key_name or
 * user_data: Nova then preserves the create-time keypair and user data, so a rebuilt guest stays
 * create-equivalent. The rebuild answer's server body is NOT returned: it can still read ACTIVE for the
 * pre-destruction server, and nothing may be derived from it (settlement comes from a fresh GET).
 */
import * as t from 'io-ts';
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { decodeOrThrow, unwrap } from '../decoders/field.js';
import type { RemoteConsole } from '../decoders/compute.js';
import { remoteConsoleCodec } from '../decoders/compute.js';

const enc = encodeURIComponent;

const action = (http: HttpSession, serverId: string, body: Record<string, unknown>) => http.post(`/servers/${enc(serverId)}/action`, body);

/** Fields a rebuild may carry besides imageRef. Deliberately without key_name and user_data. */
export interface RebuildOptions {
  name?: string;
  metadata?: Readonly<Record<string, string>>;
  preserveEphemeral?: boolean;
  description?: string;
}

/** An accepted (202) action: only the request id, for correlation in logs. */
export interface Accepted {
  readonly requestId?: string;
}

const accepted = (requestId: string | undefined): Accepted => (requestId !== undefined ? { requestId } : {});

/** The rebuild body (exported for tests): only the named fields, in a fresh object. */
export const rebuildBody = (imageRef: string, options: RebuildOptions = {}): { rebuild: Record<string, unknown> } => {
  const rebuild: Record<string, unknown> = { imageRef };
  if (options.name !== undefined) rebuild.name = options.name;
  if (options.metadata !== undefined) rebuild.metadata = options.metadata;
  if (options.preserveEphemeral !== undefined) rebuild.preserve_ephemeral = options.preserveEphemeral;
  if (options.description !== undefined) rebuild.description = options.description;
  return { rebuild };
};

// Compute API: Rebuild Server (rebuild Action) — POST /servers/{server_id}/action
export const rebuildServer = async (http: HttpSession, serverId: string, imageRef: string, options: RebuildOptions = {}): Promise<Accepted> => {
  const response = await action(http, serverId, rebuildBody(imageRef, options));
  return accepted(response.requestId);
};

// Compute API: Start Server (os-start Action) — POST /servers/{server_id}/action
export const startServer = async (http: HttpSession, serverId: string): Promise<Accepted> =>
  accepted((await action(http, serverId, { 'os-start': null })).requestId);

// Compute API: Stop Server (os-stop Action) — POST /servers/{server_id}/action
export const stopServer = async (http: HttpSession, serverId: string): Promise<Accepted> =>
  accepted((await action(http, serverId, { 'os-stop': null })).requestId);

// Compute API: Reboot Server (reboot Action) — POST /servers/{server_id}/action
export const rebootServer = async (http: HttpSession, serverId: string, type: 'SOFT' | 'HARD'): Promise<Accepted> =>
  accepted((await action(http, serverId, { reboot: { type } })).requestId);

// Compute API: Create Image (createImage Action) — POST /servers/{server_id}/action (2.45+: answers {"image_id"})
export const createServerImage = async (http: HttpSession, serverId: string, name: string, metadata?: Readonly<Record<string, string>>): Promise<{ imageId: string } & Accepted> => {
  const response = await action(http, serverId, { createImage: { name, ...(metadata !== undefined ? { metadata } : {}) } });
  const body = decodeOrThrow(t.type({ image_id: t.string }), response.data, 'createImage answer', contextOf(http, response));
  return { imageId: body.image_id, ...accepted(response.requestId) };
};

// Compute API: Show Console Output (os-getConsoleOutput Action) — POST /servers/{server_id}/action
export const getConsoleOutput = async (http: HttpSession, serverId: string, length?: number): Promise<string> => {
  const response = await action(http, serverId, { 'os-getConsoleOutput': length !== undefined ? { length } : {} });
  return decodeOrThrow(t.type({ output: t.string }), response.data, 'console output', contextOf(http, response)).output;
};

export type ConsoleProtocol = 'vnc' | 'spice' | 'serial' | 'rdp' | 'mks';
export type ConsoleType = 'novnc' | 'xvpvnc' | 'spice-html5' | 'spice-direct' | 'serial' | 'rdp-html5' | 'webmks';

// Compute API: Create Remote Console — POST /servers/{server_id}/remote-consoles
export const createRemoteConsole = async (http: HttpSession, serverId: string, protocol: ConsoleProtocol, type: ConsoleType): Promise<RemoteConsole> => {
  const response = await http.post(`/servers/${enc(serverId)}/remote-consoles`, { remote_console: { protocol, type } });
  const context = contextOf(http, response);
  return decodeOrThrow(remoteConsoleCodec, unwrap(response.data, 'remote_console', context), 'remote console', context);
};

// Compute API: Reset Server State (os-resetState Action) — POST /servers/{server_id}/action (admin)
export const resetServerState = async (http: HttpSession, serverId: string, state: 'active' | 'error'): Promise<Accepted> =>
  accepted((await action(http, serverId, { 'os-resetState': { state } })).requestId);
