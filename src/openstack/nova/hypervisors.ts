/** Nova hypervisors (os-hypervisors, 2.53+: UUID ids; 2.88+: no usage counters — those live in Placement). */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { decodeOrThrow, unwrap } from '../decoders/field.js';
import type { Hypervisor } from '../decoders/compute.js';
import { hypervisorCodec } from '../decoders/compute.js';

const enc = encodeURIComponent;

// Compute API: List Hypervisors Details — GET /os-hypervisors/detail
export const listHypervisors = async (http: HttpSession, filters: { hypervisor_hostname_pattern?: string; with_servers?: boolean } = {}, page: PageOptions = {}): Promise<Hypervisor[]> => {
  const items = await listAllPages(http, { path: '/os-hypervisors/detail', query: { ...filters }, collection: 'hypervisors', next: 'links' }, page);
  return items.map((item) => decodeOrThrow(hypervisorCodec, item.raw, 'hypervisor', contextOf(http, item.response)));
};

// Compute API: Show Hypervisor Details — GET /os-hypervisors/{hypervisor_id}
export const getHypervisor = async (http: HttpSession, id: string): Promise<Hypervisor> => {
  const response = await http.get(`/os-hypervisors/${enc(id)}`);
  const context = contextOf(http, response);
  return decodeOrThrow(hypervisorCodec, unwrap(response.data, 'hypervisor', context), 'hypervisor', context);
};
