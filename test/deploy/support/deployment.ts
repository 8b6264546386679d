/** The Deployment's pod spec, and its args run through the real `regent start` option parsing. */
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main.js';
import { controlPlaneOptions, type StartCommandOptions } from '../../../src/cli/commands/start.js';
import type { GlobalOptions } from '../../../src/cli/context.js';
import { at, type KubeObject } from './files.js';

export type Container = {
  name: string;
  image: string;
  command: string[];
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
};
export type Volume = { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: unknown; secret?: { secretName: string; defaultMode?: number } };

export const podSpecOf = (deployment: KubeObject) => at(deployment, 'spec', 'template', 'spec') as { containers: Container[]; volumes: Volume[]; serviceAccountName: string; securityContext: Record<string, unknown>; affinity?: unknown };

/** The Deployment's args through the real `regent` program: what `regent start` would run with. */
export const parseStartArgs = async (args: readonly string[], env: Record<string, string>) => {
  const program = buildProgram();
  const start = program.commands.find((c: Command) => c.name() === 'start' || c.aliases().includes('start'));
  if (!start) throw new Error('no start command');
  let captured: StartCommandOptions | undefined;
  start.exitOverride().action((options: StartCommandOptions) => {
    captured = options;
  });
  await program.parseAsync(['node', 'regent', ...args]);
  if (!captured) throw new Error('start did not run');
  const globals: GlobalOptions = { ...program.opts<GlobalOptions>() };
  const saved = process.env.REGENT_STORE;
  process.env.REGENT_STORE = env.REGENT_STORE;
  try {
    return controlPlaneOptions(globals, captured) as ReturnType<typeof controlPlaneOptions> & { host?: string };
  } finally {
    if (saved === undefined) delete process.env.REGENT_STORE;
    else process.env.REGENT_STORE = saved;
  }
};
