/**
 * Nova's server observation (src/openstack decoders: tagged value/absent/unreadable fields) reduced to
 * the facts the server-rebuild machine decides on. Absent and unreadable stay distinct from values:
 * a hidden task_state is "unknown", never "idle"; a boot-from-volume or malformed image is
 * "unreadable", never an image.
 */
import type { ServerObservation } from '../openstack/decoders/server.js';
import type { ServerFacts } from '../../machines/server-rebuild/observation.js';

/** Nova prints UTC times without a zone (`2026-11-29T10:55:19.784000`); status fields are RFC 3339. */
export const novaTimeToRfc3339 = (time: string): string => {
  const date = new Date(/(?:Z|[+-]\d{2}:?\d{2})$/.test(time) ? time : `${time}Z`);
  return Number.isNaN(date.getTime()) ? time : date.toISOString();
};

export const serverFacts = (server: ServerObservation): ServerFacts => {
  const task = server.taskState;
  const image = server.imageRef;
  const launched = server.launchedAt;
  const macs = server.macAddresses;
  return {
    id: server.id,
    status: server.status.kind === 'value' ? server.status.value : null,
    taskState:
      task.kind === 'value'
        ? task.value === null || task.value === ''
          ? { kind: 'idle' }
          : { kind: 'active', name: task.value }
        : { kind: 'unknown', why: task.kind === 'absent' ? 'hidden' : 'unreadable' },
    imageRef:
      image.kind === 'value'
        ? image.value.source === 'image'
          ? { kind: 'image', id: image.value.id }
          : { kind: 'unreadable', why: 'bootFromVolume' }
        : { kind: 'unreadable', why: image.kind === 'absent' ? 'missing' : 'malformed' },
    launchedAt:
      launched.kind === 'value' ? (launched.value === null ? { kind: 'never' } : { kind: 'launched', at: novaTimeToRfc3339(launched.value) }) : { kind: 'unreadable' },
    macAddress: macs.kind === 'value' ? (macs.value[0] ?? null) : null,
    ...(server.addresses.kind === 'value' && server.addresses.value.length > 0 ? { ipAddresses: [...new Set(server.addresses.value.map((a) => a.addr))] } : {}),
  };
};
