/** Nova availability zones (the view every project member may read; `/detail` is admin-only). */
import * as t from 'io-ts';
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { decodeOrThrow } from '../decoders/field.js';

const availabilityZonesCodec = t.type({
  availabilityZoneInfo: t.array(t.intersection([t.type({ zoneName: t.string, zoneState: t.type({ available: t.boolean }) }), t.partial({ hosts: t.unknown })])),
});

export interface AvailabilityZone {
  name: string;
  available: boolean;
}

// Compute API: Get Availability Zone Information — GET /os-availability-zone
export const listAvailabilityZones = async (http: HttpSession): Promise<AvailabilityZone[]> => {
  const response = await http.get('/os-availability-zone');
  const body = decodeOrThrow(availabilityZonesCodec, response.data, 'availability zones', contextOf(http, response));
  return body.availabilityZoneInfo.map((z) => ({ name: z.zoneName, available: z.zoneState.available }));
};
