/**
 * The region benchmark's command line: `--quick` (the CI size), `--json <file>`, and each size on its own
 * (`--servers`, `--projects`, `--poll-servers`, `--rebuild`, `--volumes`, `--load-balancers`, `--cycles`), plus
 * `--skip <part,…>` (monitor, poll, fleet, lb, replay) to run less. Pure: argv in, options out.
 */
export interface RegionBenchOptions {
  quick: boolean;
  json: string | undefined;
  markdown: string | undefined;
  /** Monitor cycle: servers and projects. */
  servers: number;
  projects: number;
  steadyCycles: number;
  /** The one-poll part: servers (in `projects` projects), first poll included. */
  pollServers: number;
  /** Mass change: servers created then rebuilt, volumes created and attached, load balancers. */
  rebuild: number;
  volumes: number;
  loadBalancers: number;
  skip: ReadonlySet<string>;
  /** How long any one part may take to settle before it is reported as not settled. */
  settleTimeoutMs: number;
}

export const FULL: Omit<RegionBenchOptions, 'json' | 'markdown' | 'skip'> = {
  quick: false, servers: 10_000, projects: 50, steadyCycles: 5, pollServers: 100_000, rebuild: 1_000, volumes: 1_000, loadBalancers: 200, settleTimeoutMs: 900_000,
};
export const QUICK: Omit<RegionBenchOptions, 'json' | 'markdown' | 'skip'> = {
  quick: true, servers: 100, projects: 5, steadyCycles: 3, pollServers: 1_000, rebuild: 100, volumes: 20, loadBalancers: 5, settleTimeoutMs: 60_000,
};

const NUMBERS = { '--servers': 'servers', '--projects': 'projects', '--cycles': 'steadyCycles', '--poll-servers': 'pollServers', '--rebuild': 'rebuild', '--volumes': 'volumes', '--load-balancers': 'loadBalancers', '--settle-timeout-ms': 'settleTimeoutMs' } as const;

export const parseOptions = (argv: readonly string[]): RegionBenchOptions => {
  const base = argv.includes('--quick') ? QUICK : FULL;
  const options: RegionBenchOptions = { ...base, json: undefined, markdown: undefined, skip: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = argv[i + 1];
    if (arg === '--quick') continue;
    if (arg === '--json') options.json = value;
    else if (arg === '--markdown') options.markdown = value;
    else if (arg === '--skip') options.skip = new Set((value ?? '').split(',').filter(Boolean));
    else if (arg in NUMBERS) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${arg} needs a whole number, not ${value}`);
      options[NUMBERS[arg as keyof typeof NUMBERS]] = n;
    } else throw new Error(`unknown argument ${arg} (--quick, --json <file>, --markdown <file>, --skip <parts>, ${Object.keys(NUMBERS).join(', ')})`);
    i++;
  }
  if (options.volumes > options.rebuild) throw new Error('--volumes cannot exceed --rebuild: each volume is attached to one of the servers');
  return options;
};
