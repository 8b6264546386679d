/**
 * How a local role process is launched (./local.ts): the RoleLauncher turns a role, its config directory and its
 * loopback port into a command line and the extra files it needs. The default runs the installed Nova (Debian's
 * python3-nova, importable by /usr/bin/python3 only, as on the sandbox):
 *
 *   /usr/bin/python3 -c '<launcher>' --config-file <dir>/nova.conf [--config-file <dir>/<overlay>] --config-file <dir>/regent-local.conf
 *
 * where the launcher names the process as its console script would (`sys.argv[0]`), asks the kernel to SIGTERM it
 * when Regent dies (PR_SET_PDEATHSIG, so a crashed Regent does not leave a role holding its port), and calls the
 * role's `nova.cmd` module: conductor, scheduler, api_metadata, novncproxy, and api_os_compute for the API (the
 * compute API alone; nova.cmd.api would start every API of enabled_apis in one process).
 *
 * `regent-local.conf` is loaded last, so it wins over the rendered config for what only this host can say: the
 * loopback port the role listens on (a pod has its own network and listens on the spec's port; processes on one
 * host need a port each — the sandbox's own nova-api holds 8774), where the broker CA bundle was written on a TLS
 * bus, and, without /usr/share/novnc (Debian's novnc package, the console's web client), a placeholder page for
 * the console proxy to serve: websockify proxies consoles without it, a browser just gets no noVNC client.
 */
import { existsSync } from 'node:fs';
import type { NovaRole } from './port.js';

export interface LaunchInput {
  role: NovaRole;
  /** The role's config directory: the rendered files. */
  configDir: string;
  /** The rendered files' names in configDir. */
  files: readonly string[];
  overlay?: string;
  host: string;
  /** The loopback port (the API, metadata, the console proxy). */
  port?: number;
  /** The broker CA bundle as written for this process, on a TLS bus. */
  messagingCAFile?: string;
}

export interface Launch {
  command: string;
  args: string[];
  /** Files written into configDir before the start (paths relative to it). */
  files: Record<string, string>;
}

export type RoleLauncher = (input: LaunchInput) => Launch;

export const NOVA_PYTHON = '/usr/bin/python3';
export const LOCAL_CONF = 'regent-local.conf';
const NOVNC_WEB = '/usr/share/novnc';
const PLACEHOLDER_WEB = 'novnc-web';

/** The module each role's main() lives in, and the name its console script gives the process. */
export const ROLE_ENTRY: Readonly<Record<NovaRole, { module: string; argv0: string }>> = {
  conductor: { module: 'nova.cmd.conductor', argv0: 'nova-conductor' },
  scheduler: { module: 'nova.cmd.scheduler', argv0: 'nova-scheduler' },
  metadata: { module: 'nova.cmd.api_metadata', argv0: 'nova-api-metadata' },
  novncproxy: { module: 'nova.cmd.novncproxy', argv0: 'nova-novncproxy' },
  api: { module: 'nova.cmd.api_os_compute', argv0: 'nova-api-os-compute' },
};

/** The `python3 -c` program of a role. */
export const launcherCode = (role: NovaRole): string =>
  [
    'import ctypes, sys',
    'try:',
    '    ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG = SIGTERM: the role ends with Regent',
    'except Exception:',
    '    pass',
    `sys.argv[0] = ${JSON.stringify(ROLE_ENTRY[role].argv0)}`,
    `from ${ROLE_ENTRY[role].module} import main`,
    'sys.exit(main())',
  ].join('\n');

const ini = (sections: Record<string, Record<string, string | number>>): string =>
  Object.entries(sections)
    .filter(([, values]) => Object.keys(values).length > 0)
    .map(([name, values]) => `[${name}]\n${Object.entries(values).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`)
    .join('\n');

/** regent-local.conf: the listen address and port, the broker CA file, the console's web root. */
export const localConf = (input: LaunchInput, novncWeb: string | undefined): string => {
  const { role, host, port } = input;
  const defaults: Record<string, string | number> = {};
  const sections: Record<string, Record<string, string | number>> = { DEFAULT: defaults };
  if (role === 'api') Object.assign(defaults, { osapi_compute_listen: host, osapi_compute_listen_port: port ?? 8774 });
  if (role === 'metadata') Object.assign(defaults, { metadata_listen: host, metadata_listen_port: port ?? 8775 });
  if (role === 'novncproxy') {
    sections.vnc = { novncproxy_host: host, novncproxy_port: port ?? 6080 };
    if (novncWeb !== undefined) defaults.web = novncWeb;
  }
  if (input.messagingCAFile !== undefined) sections.oslo_messaging_rabbit = { ssl_ca_file: input.messagingCAFile };
  return `# Written by Regent's local workload adapter, loaded last: what a pod's own network and mounts give a role on\n# Kubernetes, said for this host (src/nova/workloads/nova-launcher.ts).\n${ini(sections)}`;
};

const PLACEHOLDER_PAGE = '<!doctype html><title>nova-novncproxy</title><p>This console proxy runs without noVNC\'s web client: /usr/share/novnc is not installed on this host.</p>\n';

/** The installed Nova, through `python` (default /usr/bin/python3). */
export const novaLauncher = (options: { python?: string; novncWebExists?: boolean } = {}): RoleLauncher => {
  const python = options.python ?? NOVA_PYTHON;
  const novncInstalled = options.novncWebExists ?? existsSync(NOVNC_WEB);
  return (input) => {
    const files: Record<string, string> = {};
    let web: string | undefined;
    if (input.role === 'novncproxy' && !novncInstalled) {
      web = `${input.configDir}/${PLACEHOLDER_WEB}`;
      files[`${PLACEHOLDER_WEB}/index.html`] = PLACEHOLDER_PAGE;
    }
    files[LOCAL_CONF] = localConf(input, web);
    const configFiles = ['nova.conf', ...(input.overlay ? [input.overlay] : []), LOCAL_CONF];
    return { command: python, args: ['-c', launcherCode(input.role), ...configFiles.flatMap((f) => ['--config-file', `${input.configDir}/${f}`])], files };
  };
};
