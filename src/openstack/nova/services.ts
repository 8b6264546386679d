/** Nova compute services (os-services): which nova-compute hosts are up and enabled. */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { decodeOrThrow, unwrapList } from '../decoders/field.js';
import type { ComputeService } from '../decoders/compute.js';
import { computeServiceCodec } from '../decoders/compute.js';

// Compute API: List Compute Services — GET /os-services
export const listComputeServices = async (http: HttpSession, filters: { binary?: string; host?: string } = {}): Promise<ComputeService[]> => {
  const response = await http.get('/os-services', { ...filters });
  const context = contextOf(http, response);
  return unwrapList(response.data, 'services', context).map((raw) => decodeOrThrow(computeServiceCodec, raw, 'compute service', context));
};
