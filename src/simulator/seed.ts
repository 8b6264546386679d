// Seed cloud beyond identity: flavors, images, networks, volume types, placement and Ironic inventory.
import type { Sim } from './state.js';

export function seedCloud(_sim: Sim): void {
  // filled per service below
}
