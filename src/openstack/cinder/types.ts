/** Cinder volume types (the VolumeClass inventory). */
import * as t from 'io-ts';
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { decodeOrThrow, nullable, unwrap, unwrapList } from '../decoders/field.js';

export const volumeTypeCodec = t.intersection([
  t.type({ id: t.string, name: t.string }),
  t.partial({ description: nullable(t.string), is_public: t.boolean, extra_specs: nullable(t.record(t.string, t.string)), qos_specs_id: nullable(t.string) }),
]);
export type VolumeType = t.TypeOf<typeof volumeTypeCodec>;

// Block Storage API v3: List All Volume Types — GET /v3/{project_id}/types
export const listVolumeTypes = async (http: HttpSession, options: { isPublic?: boolean | 'None' } = {}): Promise<VolumeType[]> => {
  const response = await http.get('/types', { is_public: options.isPublic });
  const context = contextOf(http, response);
  return unwrapList(response.data, 'volume_types', context).map((raw) => decodeOrThrow(volumeTypeCodec, raw, 'volume type', context));
};

// Block Storage API v3: Show Volume Type Detail — GET /v3/{project_id}/types/{volume_type_id}
export const getVolumeType = async (http: HttpSession, id: string): Promise<VolumeType> => {
  const response = await http.get(`/types/${encodeURIComponent(id)}`);
  const context = contextOf(http, response);
  return decodeOrThrow(volumeTypeCodec, unwrap(response.data, 'volume_type', context), 'volume type', context);
};
