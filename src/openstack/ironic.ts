/**
 * Ironic: the node behind a baremetal instance, looked up by instance_uuid, to tell Queued (pre-deploy states)
 * from Building (deploying). Provision state is a tagged field: an unknown state is unreadable, not "building".
 */
import * as t from 'io-ts';
import type { HttpSession } from './http.js';
import { contextOf } from './http.js';
import type { BoundClient } from './bind.js';
import { bindClient } from './bind.js';
import { UnreadableResponse } from './errors.js';
import { ConsistencyError } from './errors.js';
import type { Field } from './decoders/field.js';
import { decodeOrThrow, nullable, readField, unwrapList } from './decoders/field.js';

export interface IronicNodeObservation {
  readonly uuid: string;
  readonly name: string | null;
  readonly provisionState: Field<string>;
  readonly targetProvisionState: Field<string | null>;
  readonly powerState: Field<string | null>;
  readonly maintenance: Field<boolean>;
  readonly lastError: Field<string | null>;
  readonly observedAt?: string;
}

const decodeNode = (raw: unknown, observedAt: string, context: ReturnType<typeof contextOf>): IronicNodeObservation => {
  const head = decodeOrThrow(t.intersection([t.type({ uuid: t.string }), t.partial({ name: nullable(t.string) })]), raw, 'node', context);
  const obj = raw as Record<string, unknown>;
  return {
    uuid: head.uuid,
    name: head.name ?? null,
    provisionState: readField(obj, 'provision_state', t.string),
    targetProvisionState: readField(obj, 'target_provision_state', nullable(t.string)),
    powerState: readField(obj, 'power_state', nullable(t.string)),
    maintenance: readField(obj, 'maintenance', t.boolean),
    lastError: readField(obj, 'last_error', nullable(t.string)),
    observedAt,
  };
};

// Bare Metal API: List Nodes Detailed — GET /v1/nodes/detail?instance_uuid=
export const findNodeByInstance = async (http: HttpSession, instanceUuid: string): Promise<IronicNodeObservation | undefined> => {
  const response = await http.get('/nodes/detail', { instance_uuid: instanceUuid });
  const context = contextOf(http, response);
  const nodes = unwrapList(response.data, 'nodes', context).map((raw) => decodeNode(raw, response.receivedAt, context));
  if (nodes.length > 1) throw new ConsistencyError('baremetal node', `instance ${instanceUuid}`, nodes.map((n) => n.uuid), context);
  return nodes[0];
};

// Bare Metal API: Show Node Details — GET /v1/nodes/{node_ident}
export const getNode = async (http: HttpSession, nodeIdent: string): Promise<IronicNodeObservation> => {
  const response = await http.get(`/nodes/${encodeURIComponent(nodeIdent)}`);
  const context = contextOf(http, response);
  if (typeof response.data !== 'object' || response.data === null) throw new UnreadableResponse('unreadable node', ['(root)'], context);
  return decodeNode(response.data, response.receivedAt, context);
};

const ironicFunctions = { findNodeByInstance, getNode };
export type IronicClient = BoundClient<typeof ironicFunctions>;
export const createIronicClient = (http: HttpSession): IronicClient => bindClient(http, ironicFunctions);
