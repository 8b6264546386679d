/** Test fixtures created through the clients themselves: a flavor (admin), a public image (admin), a network + subnet (per project). */
import type { RunningSimulator } from '../../../src/simulator/index.js';
import type { OpenStackSession } from '../../../src/openstack/session.js';
import { simApi } from './sim.js';

export interface Fixtures {
  flavorId: string;
  imageId: string;
  image2Id: string;
  networkId: string;
  subnetId: string;
}

let counter = 0;
/** A name unique within this test process. */
export const uniqueName = (prefix: string): string => `${prefix}-${process.pid}-${++counter}`;

export const createFixtures = async (admin: OpenStackSession, tenant: OpenStackSession): Promise<Fixtures> => {
  const flavor = await admin.nova.createFlavor({ name: uniqueName('regent-flavor'), vcpus: 1, ram: 512, disk: 1 });
  const image = await admin.glance.createImage({ name: uniqueName('regent-image'), diskFormat: 'raw', containerFormat: 'bare', visibility: 'public' });
  await admin.glance.uploadImageData(image.id, Buffer.from('not really a disk'));
  const image2 = await admin.glance.createImage({ name: uniqueName('regent-image'), diskFormat: 'raw', containerFormat: 'bare', visibility: 'public' });
  await admin.glance.uploadImageData(image2.id, Buffer.from('another disk'));
  const network = await tenant.neutron.createNetwork({ name: uniqueName('regent-net') });
  const subnet = await tenant.neutron.createSubnet({ name: uniqueName('regent-subnet'), network_id: network.id, cidr: '192.0.2.0/24', ip_version: 4, enable_dhcp: false });
  return { flavorId: flavor.id, imageId: image.id, image2Id: image2.id, networkId: network.id, subnetId: subnet.id };
};

/** Let the simulator's scheduled transitions run (manual clock). */
export const settle = async (sim: RunningSimulator, ms = 10_000): Promise<void> => {
  await simApi(sim, 'POST', '/clock/advance', { ms });
};
