/** `regent simulator --port N`: an OpenStack simulator on 127.0.0.1 for demos and manual testing. */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';

export const registerSimulator = (program: Command) =>
  program
    .command('simulator')
    .description('serve the OpenStack simulator (Keystone, Nova, Glance, Cinder, Neutron, Octavia, Placement, Ironic) on 127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', '5050')
    .option('--clock <clock>', 'real | manual (advance with POST /_sim/clock/advance)', 'real')
    .action(async (options: { port: string; clock: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${options.port}: expected a port number`);
      if (options.clock !== 'real' && options.clock !== 'manual') throw new UsageError(`--clock ${options.clock}: expected real or manual`);
      const { runSimulatorCommand } = await import('../../simulator/command.js');
      await runSimulatorCommand({ port, clock: options.clock });
    });
