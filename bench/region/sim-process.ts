/**
 * The simulator of the region benchmark in a process of its own (real clock, the delays it is given as JSON in argv[2]),
 * so Regent's CPU and the simulator's are not one event loop. It tells its parent its URL over IPC, answers
 * `{ op: 'memory' }` with its own memory use, and closes when the parent disconnects or sends `{ op: 'stop' }`.
 */
import { startSimulator } from '../../src/simulator/index.js';
import type { SimDelays } from '../../src/simulator/index.js';

interface ChildRequest {
  op: 'memory' | 'stop';
  id?: number;
}

const delays = JSON.parse(process.argv[2] ?? '{}') as Partial<SimDelays>;
const sim = await startSimulator({ clock: 'real', delays });
const send = (message: unknown): void => {
  if (process.connected) process.send?.(message);
};
const stop = async (): Promise<void> => {
  await sim.close().catch(() => undefined);
  process.exit(0);
};
process.on('message', (message: ChildRequest) => {
  if (message.op === 'memory') send({ id: message.id, memory: process.memoryUsage() });
  if (message.op === 'stop') void stop();
});
process.on('disconnect', () => void stop());
send({ url: sim.url });
