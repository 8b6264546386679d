/** Every event upcaster Regent ships, in no particular order (upcast() chains them by version). */
import type { Upcaster } from './upcaster.js';

export const upcasters: readonly Upcaster[] = [];
