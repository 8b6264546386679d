/**
 * The Region kind as the control plane runs it (src/app/kind.ts): each pass's verdict on its connection, woken by its
 * own spec; a Region gone from the store drops its cached clients and inventories.
 */
import { regionConnectionStream } from '../../../machines/region-connection.js';
import { keyOf, keyParts, type KindWiring } from '../kind.js';
import { reconcileRegion } from './reconcile.js';
import { regionStatus } from './status.js';

export const regionWiring: KindWiring = {
  kind: 'Region',
  streams: [
    { prefix: regionConnectionStream(''), kind: 'Region', key: 'uid' },
    // vlan-allocation-<region uid>-<physnet>: the Region's VLAN ledger (issue 16)
    { prefix: 'vlan-allocation-', kind: 'Region', key: 'uid-prefix' },
  ],
  status: regionStatus,
  wakes: [{ from: 'Region', on: 'spec', why: 'its own spec changed (endpoint, credentials reference), or its deletion was requested', keys: (o) => [keyOf(o)] }],
  build: (services) => ({
    reconcile: (key) => reconcileRegion({ engine: services.engine, source: services.source, connections: services.connections, logger: services.logger }, ...keyParts(key)),
    onDeleted: (object) => services.forgetRegion(object.metadata.uid),
  }),
};
