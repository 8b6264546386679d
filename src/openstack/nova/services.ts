/** Nova compute services (os-services): which nova-compute hosts are up and enabled; disable and delete one. */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { decodeOrThrow, unwrap, unwrapList } from '../decoders/field.js';
import type { ComputeService, DownCellService } from '../decoders/compute.js';
import { computeServiceCodec, downCellServiceCodec } from '../decoders/compute.js';

const enc = encodeURIComponent;

// Compute API: List Compute Services — GET /os-services
export const listComputeServices = async (http: HttpSession, filters: { binary?: string; host?: string } = {}): Promise<ComputeService[]> => {
  const response = await http.get('/os-services', { ...filters });
  const context = contextOf(http, response);
  return unwrapList(response.data, 'services', context).map((raw) => decodeOrThrow(computeServiceCodec, raw, 'compute service', context));
};

/** One row of the service list: a service, or (2.69+) the minimal construct of a service whose cell did not answer. */
export type ServiceListEntry = { readonly kind: 'service'; readonly service: ComputeService } | { readonly kind: 'cell-down'; readonly service: DownCellService };

const isUnknownStatus = (raw: unknown): boolean => typeof raw === 'object' && raw !== null && (raw as { status?: unknown }).status === 'UNKNOWN';

// Compute API: List Compute Services — GET /os-services (2.69+: a down cell's services come as {binary, host, status: UNKNOWN})
export const listComputeServiceEntries = async (http: HttpSession, filters: { binary?: string; host?: string } = {}): Promise<ServiceListEntry[]> => {
  const response = await http.get('/os-services', { ...filters });
  const context = contextOf(http, response);
  return unwrapList(response.data, 'services', context).map((raw): ServiceListEntry => (isUnknownStatus(raw)
    ? { kind: 'cell-down', service: decodeOrThrow(downCellServiceCodec, raw, 'compute service (down cell)', context) }
    : { kind: 'service', service: decodeOrThrow(computeServiceCodec, raw, 'compute service', context) }));
};

/** The fields of an update (2.53+: by service id). */
export interface ComputeServiceUpdate {
  status?: 'enabled' | 'disabled';
  /** Only with status disabled. */
  disabledReason?: string;
  forcedDown?: boolean;
}

// Compute API: Update Compute Service — PUT /os-services/{service_id} (2.53+)
export const updateComputeService = async (http: HttpSession, id: string, update: ComputeServiceUpdate): Promise<ComputeService> => {
  const body: Record<string, unknown> = {
    ...(update.status !== undefined ? { status: update.status } : {}),
    ...(update.disabledReason !== undefined ? { disabled_reason: update.disabledReason } : {}),
    ...(update.forcedDown !== undefined ? { forced_down: update.forcedDown } : {}),
  };
  const response = await http.put(`/os-services/${enc(id)}`, body);
  const context = contextOf(http, response);
  return decodeOrThrow(computeServiceCodec, unwrap(response.data, 'service', context), 'compute service', context);
};

// Compute API: Delete Compute Service — DELETE /os-services/{service_id} (2.53+)
export const deleteComputeService = async (http: HttpSession, id: string): Promise<void> => {
  await http.delete(`/os-services/${enc(id)}`);
};
