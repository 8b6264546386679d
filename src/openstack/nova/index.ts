/** The Nova client: every compute function bound to one compute session (`os.nova.getServer(id)`). */
import type { HttpSession } from '../http.js';
import type { BoundClient } from '../bind.js';
import { bindClient } from '../bind.js';
import { createServer, deleteServer, findServerByName, getServer, listServers, lookupServerByName, mergeServerMetadata, replaceServerMetadata } from './servers.js';
import { createRemoteConsole, createServerImage, getConsoleOutput, rebootServer, rebuildServer, resetServerState, startServer, stopServer } from './actions.js';
import { listInstanceActions } from './instance-actions.js';
import { attachVolume, detachVolume, getVolumeAttachment, listVolumeAttachments } from './attachments.js';
import { createFlavor, deleteFlavor, findFlavorByName, getFlavor, getFlavorExtraSpecs, listFlavors, setFlavorExtraSpecs } from './flavors.js';
import { deleteKeypair, getKeypair, importKeypair, listKeypairs } from './keypairs.js';
import { createServerGroup, deleteServerGroup, findServerGroupByName, getServerGroup, listServerGroups } from './server-groups.js';
import { listComputeServices } from './services.js';
import { getHypervisor, listHypervisors } from './hypervisors.js';
import { addAggregateHost, createAggregate, deleteAggregate, findAggregateByName, getAggregate, listAggregates, removeAggregateHost, setAggregateMetadata } from './aggregates.js';
import { getQuotaSet, updateQuotaSet } from './quotas.js';
import { listAvailabilityZones } from './availability-zones.js';

const novaFunctions = {
  listServers, getServer, findServerByName, lookupServerByName, createServer, deleteServer, mergeServerMetadata, replaceServerMetadata,
  rebuildServer, startServer, stopServer, rebootServer, createServerImage, getConsoleOutput, createRemoteConsole, resetServerState,
  listInstanceActions,
  listVolumeAttachments, getVolumeAttachment, attachVolume, detachVolume,
  listFlavors, getFlavor, findFlavorByName, createFlavor, deleteFlavor, getFlavorExtraSpecs, setFlavorExtraSpecs,
  listKeypairs, getKeypair, importKeypair, deleteKeypair,
  listServerGroups, getServerGroup, findServerGroupByName, createServerGroup, deleteServerGroup,
  listComputeServices, listHypervisors, getHypervisor,
  listAggregates, getAggregate, findAggregateByName, createAggregate, deleteAggregate, addAggregateHost, removeAggregateHost, setAggregateMetadata,
  getQuotaSet, updateQuotaSet,
  listAvailabilityZones,
};

export type NovaClient = BoundClient<typeof novaFunctions>;

export const createNovaClient = (http: HttpSession): NovaClient => bindClient(http, novaFunctions);

export * from './servers.js';
export * from './actions.js';
export * from './instance-actions.js';
export * from './attachments.js';
export * from './flavors.js';
export * from './keypairs.js';
export * from './server-groups.js';
export * from './services.js';
export * from './hypervisors.js';
export * from './aggregates.js';
export * from './quotas.js';
export * from './availability-zones.js';
