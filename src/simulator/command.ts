// `regent simulator --port N`: start the simulator for a demo, write a clouds.yaml, print how to use it,
// and stop cleanly on SIGINT/SIGTERM. The CLI owns argument parsing; this owns the behaviour.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from './index.js';
import type { RunningSimulator } from './index.js';

export interface SimulatorCommandOptions {
  port: number;
  clock: 'real' | 'manual';
  /** Where to print (default console.log); tests capture it. */
  print?: (line: string) => void;
  /** Resolves to stop the simulator instead of waiting for a signal (tests). */
  stopWhen?: Promise<unknown>;
  /** Called once the simulator is listening. */
  onReady?: (sim: RunningSimulator, cloudsPath: string) => void;
}

export async function runSimulatorCommand(opts: SimulatorCommandOptions): Promise<void> {
  const print = opts.print ?? ((l: string) => console.log(l));
  const sim = await startSimulator({ port: opts.port, clock: opts.clock });
  const dir = mkdtempSync(join(tmpdir(), 'regent-sim-'));
  const cloudsPath = join(dir, 'clouds.yaml');
  writeFileSync(cloudsPath, sim.cloudsYaml(), { mode: 0o600 });
  const demo = sim.credentials.demo;
  const lines = [
    `OpenStack simulator listening on ${sim.url} (clock: ${opts.clock})`,
    `  auth URL:    ${sim.authUrl}`,
    `  clouds.yaml: ${cloudsPath}  (clouds sim-admin, sim-demo, sim-other)`,
    '',
    'Try:',
    `  export OS_CLIENT_CONFIG_FILE=${cloudsPath} OS_CLOUD=sim-demo`,
    `  TOKEN=$(curl -si ${sim.authUrl}/auth/tokens -H 'Content-Type: application/json' -d '{"auth":{"identity":{"methods":["password"],"password":{"user":{"name":"${demo.username}","domain":{"name":"Default"},"password":"${demo.password}"}}},"scope":{"project":{"name":"${demo.projectName}","domain":{"name":"Default"}}}}}' | awk 'tolower($1)=="x-subject-token:"{print $2}' | tr -d '\\r')`,
    `  curl -s ${sim.url}/compute/v2.1/servers/detail -H "X-Auth-Token: $TOKEN"`,
    `  curl -s -X POST ${sim.url}/_sim/faults -d '{"method":"POST","path":"/servers/.*/action","status":500,"count":1}'`,
    ...(opts.clock === 'manual' ? [`  curl -s -X POST ${sim.url}/_sim/clock/advance -d '{"ms": 1000}'`] : []),
    `  curl -s ${sim.url}/_sim   # the control API`,
    '',
    'Press Ctrl-C to stop.',
  ];
  for (const l of lines) print(l);
  opts.onReady?.(sim, cloudsPath);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    void opts.stopWhen?.then(stop);
  });
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
  print('OpenStack simulator stopped.');
}
