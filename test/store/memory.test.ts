import { MemoryEventStore } from '../../src/store/memory.js';
import { storeConformance } from './conformance.js';

storeConformance('memory', async () => new MemoryEventStore());
