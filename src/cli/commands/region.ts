/**
 * `regent region register --cloud <name>`: registers an OpenStack region from a clouds.yaml entry with
 * admin powers (src/provider/regions/register.ts does the work; docs/region.md, "Registering a region").
 * One line per step as it is decided (`domain regent-x: created (id …)`, `Secret default/x-credentials:
 * would create`), then one naming the Region. Nothing secret is ever printed: the lines carry names and
 * Keystone ids only. A bad flag, an unknown cloud or an unreadable clouds file exits 2 with one line.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { resourcesUrlOf } from './resources.js';

interface RegisterOptions {
  cloud: string;
  cloudsFile?: string;
  name?: string;
  namespace: string;
  secretNamespace?: string;
  regionName?: string;
  roles?: string;
  resources?: string;
  dryRun?: boolean;
}

/** `RegionOne` → `region-one`: the default Region resource name, from the OpenStack region's. */
export const regionResourceName = (regionName: string): string =>
  regionName
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');

/** One-line usage errors (`regent: unknown option '--x' …`) instead of commander's two lines. */
const oneLineErrors = (command: Command, usage: string): Command =>
  command
    .showHelpAfterError(false)
    .configureOutput({ outputError: (text, write) => write(`regent: ${text.replace(/^error: /, '').trim()} (${usage})\n`) });

export const registerRegionCommands = (program: Command) => {
  const region = oneLineErrors(program.command('region').description('OpenStack regions: register one from an admin clouds.yaml entry'), 'run regent region --help for usage');
  oneLineErrors(region.command('register'), 'run regent region register --help for usage')
    .description('create the managed Keystone domain, the service project, user, role assignments and application credential of a region, store the credential in a Secret and write the Region resource (idempotent)')
    .requiredOption('--cloud <name>', 'the clouds.yaml entry to register from: it needs admin powers')
    .option('--clouds-file <path>', 'the clouds.yaml (default: OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml)')
    .option('--name <name>', "the Region resource's name (default: from the OpenStack region, RegionOne → region-one)")
    .option('-n, --namespace <ns>', "the Region resource's namespace", 'default')
    .option('--secret-namespace <ns>', "where the credentials Secret goes (default: the Region's namespace; on Kubernetes, Regent's own namespace)")
    .option('--region-name <region>', "the OpenStack region (default: the cloud's region_name, else the only region of its catalog)")
    .option('--roles <names>', "the roles every Identity's user is granted, comma-separated, written to the Region as managedRoles (default: manager,member,load-balancer_member)")
    .option('--resources <url>', 'resource source: embedded:<path> (default embedded:./data/resources.db, or $REGENT_RESOURCES) | kubernetes[:<context>]')
    .option('--dry-run', 'print what would be created, and create nothing')
    .action(async (options: RegisterOptions) => runRegister(options));
};

const runRegister = async (options: RegisterOptions): Promise<void> => {
  // Loaded on use, so the other commands start fast.
  const [{ InvalidConfig, OpenStackError, Unauthorized }, { cloudFromYaml }, { loadCloudConfig }, session, register, kube, { createLogger }] = await Promise.all([
    import('../../openstack/errors.js'),
    import('../../openstack/keystone/clouds-config.js'),
    import('../../openstack/keystone/clouds-reader.js'),
    import('../../openstack/session.js'),
    import('../../provider/regions/register.js'),
    import('../../kube/open.js'),
    import('../../log/logger.js'),
  ]);

  let cloud;
  try {
    if (options.cloudsFile !== undefined) {
      let text: string;
      try {
        text = readFileSync(options.cloudsFile, 'utf8');
      } catch {
        throw new UsageError(`--clouds-file ${options.cloudsFile}: cannot read it`);
      }
      cloud = cloudFromYaml(text, options.cloud, options.cloudsFile);
    } else {
      cloud = await loadCloudConfig({ cloudName: options.cloud });
    }
  } catch (error) {
    // the message names the file, the cloud and the missing key, never a value (clouds-config.ts)
    if (error instanceof InvalidConfig) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const openstackRegion = options.regionName ?? cloud.regionName;
  const name = options.name ?? (openstackRegion !== undefined ? regionResourceName(openstackRegion) : undefined);
  if (name === undefined || name === '') throw new UsageError(`--name is required: cloud ${options.cloud} names no region_name to take it from`);

  const spec = resourcesUrlOf(options);
  const location = kube.parseSourceSpec(spec);
  // A dry run writes nothing, also no new embedded store: a missing one reads as empty.
  const missing = location.kind === 'embedded' && location.path !== ':memory:' && !existsSync(location.path);
  const source = await kube.openResourceSource(options.dryRun && missing ? 'embedded::memory:' : spec);
  const logger = createLogger();
  try {
    const report = await register.registerRegion(
      {
        name,
        namespace: options.namespace,
        cloud,
        ...(options.regionName !== undefined ? { regionName: options.regionName } : {}),
        endpoint: cloud.authUrl,
        ...(options.secretNamespace !== undefined ? { secretNamespace: options.secretNamespace } : {}),
        ...(options.roles !== undefined ? { roles: options.roles.split(',').map((r) => r.trim()) } : {}),
        dryRun: options.dryRun === true,
      },
      {
        source,
        connect: (c) => session.connect(c, { logger }),
        connectAsUser: (c, login) => session.connectAsUser(c, login, { logger }),
        onStep: (step) => console.log(register.describeStep(step)),
      },
    );
    const where = `Keystone ${report.endpoint}, region ${report.regionName}, managed domain ${report.domain.name}${report.domain.id !== undefined ? ` (${report.domain.id})` : ''}`;
    console.log(
      report.dryRun
        ? `dry run, nothing was changed: Region ${report.region.namespace}/${report.region.name} would be registered (${where})`
        : `Region ${report.region.namespace}/${report.region.name} registered (${where})${report.changed ? '' : ': nothing changed'}`,
    );
  } catch (error) {
    if (error instanceof register.RegistrationRefused) {
      if (['InvalidInput', 'RegionAmbiguous', 'RegionNotInCatalog'].includes(error.problem)) throw new UsageError(error.message, { cause: error });
      throw new Error(error.message, { cause: error });
    }
    if (error instanceof Unauthorized) throw new Error(`Keystone ${cloud.authUrl} refused the credentials of cloud ${options.cloud} (HTTP ${error.status ?? 401})`, { cause: error });
    // redacted by the HTTP layer; the class name would add nothing for an operator
    if (error instanceof OpenStackError) throw new Error(error.message, { cause: error });
    throw error;
  } finally {
    await source.close();
  }
};
