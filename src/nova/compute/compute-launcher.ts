/**
 * How the embedded default starts one node's nova-compute (./local.ts): the ComputeLauncher turns a node's config
 * files into a command line. The default runs the installed Nova the way the roles run it
 * (src/nova/workloads/nova-launcher.ts: Debian's python3-nova, importable by /usr/bin/python3 only; the package ships
 * no /usr/bin/nova-compute console script on this host):
 *
 *   /usr/bin/python3 -c '<launcher>' --config-file <node>/config/nova.conf --config-file <node>/config/compute-pool.conf
 *                                    --config-file <node>/config/regent-local.conf
 *
 * where the launcher names the process as its console script would (`sys.argv[0] = "nova-compute"`), asks the
 * kernel to SIGTERM it when Regent dies (PR_SET_PDEATHSIG), and calls `nova.cmd.compute.main`. The three files, in
 * load order (a later file wins): the contract Secret's `compute.conf` (the fragment every compute node shares),
 * the pool's compute-pool.conf (its spec.extraConfig merged in), and regent-local.conf, written by the adapter: what
 * only this host can say (the node as `[DEFAULT] host`, Nova's fake virt driver, the node's own state and lock
 * directories, the broker CA file on a TLS bus). Credentials are in none of them: the adapter hands them to the
 * process as oslo.config environment overrides (src/nova/config/env.ts).
 */
import { NOVA_PYTHON, type Launch } from '../workloads/nova-launcher.js';

export interface ComputeLaunchInput {
  /** The Node's name: the process's `[DEFAULT] host`. */
  node: string;
  /** `<pool dir>/nodes/<node>`: the process's cwd and HOME. */
  nodeDir: string;
  /** The config files in load order, absolute paths: nova.conf, compute-pool.conf, regent-local.conf. */
  configFiles: readonly string[];
}

export type ComputeLauncher = (input: ComputeLaunchInput) => Pick<Launch, 'command' | 'args'>;

/** The module nova-compute's main() lives in, and the name its console script gives the process. */
export const COMPUTE_ENTRY = { module: 'nova.cmd.compute', argv0: 'nova-compute' } as const;

/** The `python3 -c` program of nova-compute (the roles' launcherCode, for the one service that is not a NovaRole). */
export const computeLauncherCode = (): string =>
  [
    'import ctypes, sys',
    'try:',
    '    ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG = SIGTERM: nova-compute ends with Regent',
    'except Exception:',
    '    pass',
    `sys.argv[0] = ${JSON.stringify(COMPUTE_ENTRY.argv0)}`,
    `from ${COMPUTE_ENTRY.module} import main`,
    'sys.exit(main())',
  ].join('\n');

/** The installed Nova's nova-compute, through `python` (default /usr/bin/python3). */
export const novaComputeLauncher =
  (options: { python?: string } = {}): ComputeLauncher =>
  (input) => ({
    command: options.python ?? NOVA_PYTHON,
    args: ['-c', computeLauncherCode(), ...input.configFiles.flatMap((file) => ['--config-file', file])],
  });
