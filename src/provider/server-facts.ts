/**
 * Nova's server observation (src/openstack decoders: tagged value/absent/unreadable fields) reduced to
 * the facts the server-rebuild machine decides on. Absent and unreadable stay distinct from values:
 * a hidden task_state is "unknown", never "idle"; a boot-from-volume or malformed image is
 * "unreadable", never an image.
 */
import type { ServerObservation } from '../openstack/decoders/server.js';
import type { ServerFacts } from '../../machines/server-rebuild/observation.js';

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
      launched.kind === 'value' ? (launched.value === null ? { kind: 'never' } : { kind: 'launched', at: launched.value }) : { kind: 'unreadable' },
    macAddress: macs.kind === 'value' ? (macs.value[0] ?? null) : null,
  };
};
