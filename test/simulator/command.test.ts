import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { runSimulatorCommand } from '../../src/simulator/command.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { http, passwordToken } from './helpers.js';

describe('simulator: runSimulatorCommand', () => {
  it('starts on the given port, writes clouds.yaml, prints the URL and curl examples, and stops cleanly', async () => {
    const lines: string[] = [];
    let stop!: () => void;
    const stopWhen = new Promise<void>((r) => { stop = r; });
    let ready!: (v: { sim: RunningSimulator; path: string }) => void;
    const started = new Promise<{ sim: RunningSimulator; path: string }>((r) => { ready = r; });
    const done = runSimulatorCommand({ port: 0, clock: 'real', print: (l) => lines.push(l), stopWhen, onReady: (sim, path) => ready({ sim, path }) });
    const { sim, path } = await started;
    const text = lines.join('\n');
    expect(text).to.contain(sim.url);
    expect(text).to.contain(path);
    expect(text).to.contain('curl');
    expect(readFileSync(path, 'utf8')).to.contain('sim-demo:');
    expect((await passwordToken(sim, 'demo')).status).to.equal(201);
    stop();
    await done;
    expect(existsSync(path)).to.equal(false);
    const after = await http.get(`${sim.url}/identity/v3`).then(() => 'up', () => 'down');
    expect(after).to.equal('down');
    expect(lines.at(-1)).to.equal('OpenStack simulator stopped.');
  });
});
