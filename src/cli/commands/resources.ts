/**
 * `regent apply -f`, `regent get`, `regent delete`: desired state in the resource source, and
 * secrets in its secret store (`kind: Secret` documents; `get secrets` prints names and keys, never
 * a value; `delete secret <name>`). `get volumeclasses` is not a stored kind: it reads each Region's
 * exported VolumeClasses from its cloud (./get-volume-classes.ts).
 *
 * A Server created through the server API is named by a UUIDv5 (the id the API returned); the name it was given
 * is its `spec.name`. `get servers` shows it as DISPLAY NAME right after NAME (NAME stays what every command takes),
 * and `get server <that name>` finds it when no Server has it as its resource name.
 */
import { userInfo } from 'node:os';
import type { AuthorStamp } from '../../resource-history/author.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { OutputFormat } from '../../kube/cli/output.js';
import type { ResourceSource } from '../../kube/port.js';
import type { KindName, ObjectOf } from '../../resources/index.js';
import type { PrinterColumn } from '../../resources/kind.js';
import type { GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { withSource } from './with-source.js';

// re-exported: region.ts and start.ts read the URL from here
export { resourcesUrlOf } from './with-source.js';

const kube = () => Promise.all([import('../../kube/open.js'), import('../../kube/cli/manifests.js'), import('../../kube/cli/output.js'), import('../../kube/cli/secrets.js')]);

/** kubectl's names for secrets (not imported from kube/cli/secrets.ts: this module must load fast). Singular, plural, short. */
const SECRET_NAMES = ['secret', 'secrets'];
/** The names of Region-exported VolumeClasses (get-volume-classes.ts isVolumeClassKind; not imported, same reason). */
const VOLUME_CLASS_NAMES = ['volumeclass', 'volumeclasses', 'vc'];
/** Region-exported flavors and images (get-flavors.ts isFlavorKind; get-images.ts): not stored kinds either. */
const FLAVOR_NAMES = ['flavor', 'flavors', 'fl'];
const IMAGE_NAMES = ['image', 'images', 'img'];
const isSecretKind = (kind: string): boolean => SECRET_NAMES.includes(kind.toLowerCase());
const isVolumeClassKind = (kind: string): boolean => VOLUME_CLASS_NAMES.includes(kind.toLowerCase());
const isFlavorKind = (kind: string): boolean => FLAVOR_NAMES.includes(kind.toLowerCase());
const isImageKind = (kind: string): boolean => IMAGE_NAMES.includes(kind.toLowerCase());

/**
 * A kind `get` or `delete` does not take: a usage error listing every kind it does take, by the plural a user lists
 * them with — the stored kinds, then what `get` reads elsewhere (the secret store, each Region's cloud). The stored
 * kinds' own "known kinds" (src/kube/kinds.ts) cannot name those, and a new user looking for flavors was told they
 * did not exist.
 */
const unknownKind = async (kind: string, others: readonly (readonly string[])[]): Promise<UsageError> => {
  // the stored kinds: Regent's, then the core ones the embedded store also holds (nodes)
  const { STORED_KINDS } = await import('../../resources/index.js');
  return new UsageError(`unknown kind "${kind}"; known kinds: ${[...STORED_KINDS.map((k) => k.plural), ...others.map((names) => names[1] as string)].join(', ')}`);
};
/** The stored kind a user named, or the usage error listing what the command takes. */
const storedKind = async (kind: string, others: readonly (readonly string[])[]): Promise<KindName> => {
  const { resolveKind } = await import('../../kube/kinds.js');
  try {
    return resolveKind(kind);
  } catch {
    throw await unknownKind(kind, others);
  }
};

/** What the DISPLAY NAME column of `get servers` shows: the server's own name (the one the API was given). */
const SERVER_NAME_COLUMNS: readonly PrinterColumn[] = [{ name: 'Display Name', type: 'string', jsonPath: '.spec.name' }];

/**
 * `get server <name>`: the Server of that resource name, else the one whose spec.name it is (a Server created
 * through the API, whose resource name is the id the API returned). Several (one name on two networks) are
 * refused naming their ids.
 */
const serverByName = async (source: ResourceSource, name: string, namespace: string): Promise<ObjectOf<KindName>[]> => {
  const own = await source.get('Server', namespace, name);
  if (own) return [own];
  const named = (await source.list('Server', namespace)).items.filter((s) => (s.spec as { name?: string }).name === name);
  if (named.length > 1) throw new UsageError(`${named.length} Servers in ${namespace} are named ${name} (one per network): get one by its id: ${named.map((s) => s.metadata.name).join(', ')}`);
  return named;
};


const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `regent get volumeclasses`: connects to each Region with its Secret (loaded on use, so the other commands start fast). */
const getVolumeClasses = async (name: string | undefined, options: { namespace?: string; output: string; region?: string; resources?: string }): Promise<void> => {
  const [volumeClasses, session, { createLogger }] = await Promise.all([import('./get-volume-classes.js'), import('../../openstack/session.js'), import('../../log/logger.js')]);
  const logger = createLogger();
  await withSource(options, { create: false }, async (source) => {
    const listing = await volumeClasses.getVolumeClasses(
      source,
      { connect: (cloud) => session.connect(cloud, { logger }) },
      { ...(options.namespace !== undefined ? { namespace: options.namespace } : {}), ...(options.region !== undefined ? { region: options.region } : {}), ...(name !== undefined ? { name } : {}) },
    );
    for (const warning of listing.warnings) console.error(`Warning: ${warning}`);
    console.log(volumeClasses.formatVolumeClasses(listing.classes, options.output as OutputFormat, { single: name !== undefined, showNamespace: options.namespace === undefined && options.region === undefined }));
  });
};

/**
 * Who a CLI change is by (src/resource-history/author.ts): `--as`, else the invoking user. Stated by the CLI, not
 * authenticated: the record says so.
 */
const cliAuthor = (as: string | undefined): AuthorStamp => {
  if (as !== undefined && as.trim() === '') throw new UsageError('--as needs a name');
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.LOGNAME;
  }
  return { name: (as ?? user ?? 'unknown user').trim().slice(0, 253), channel: 'regent-cli' };
};

export const registerResourceCommands = (program: Command, _globals: () => GlobalOptions) => {
  program
    .command('apply')
    .description('create or update resources from YAML manifests (validated like the CRD schemas); v1 Secret documents go to the secret store')
    .requiredOption('-f, --filename <file>', 'a manifest file (repeatable; - for stdin)', collect)
    .option('--resources <url>', 'resource source: embedded:<path> (default embedded:./data/resources.db, or $REGENT_RESOURCES) | kubernetes[:<context>]')
    .option('--as <name>', 'who the change is by, as recorded in the resource\'s history (default: the invoking user)')
    .action(async (options: { filename: string[]; resources?: string; as?: string }) => {
      const files = options.filename.map((file) => {
        try {
          return { file, text: readFileSync(file === '-' ? 0 : file, 'utf8') };
        } catch {
          throw new UsageError(`cannot read ${file}`);
        }
      });
      const [, { applyManifestFiles, describeApplyOutcome }] = await kube();
      await withSource(options, { create: true }, async (source) => {
        for (const outcome of await applyManifestFiles(source, files, { author: cliAuthor(options.as) })) {
          console.log(describeApplyOutcome(outcome));
          for (const warning of outcome.warnings) console.error(`Warning: ${warning}`);
        }
      });
    });
  program
    .command('get <kind> [name]')
    .description('list resources of a kind, or show one (secrets: names and keys, never values; volumeclasses, flavors, images: what each Region exports, read from its cloud)')
    .option('-n, --namespace <ns>', 'namespace (default: all for lists, default for one)')
    .option('-o, --output <format>', 'table | yaml | json', 'table')
    .option('--region <name>', 'volumeclasses, flavors and images only: what this Region exports (in -n, default: default)')
    .option('--resources <url>', 'resource source (see apply)')
    .action(async (kind: string, name: string | undefined, options: { namespace?: string; output: string; region?: string; resources?: string }) => {
      if (!['table', 'yaml', 'json'].includes(options.output)) throw new UsageError(`-o ${options.output}: expected table, yaml or json`);
      const inventory = isVolumeClassKind(kind) || isFlavorKind(kind) || isImageKind(kind);
      if (options.region !== undefined && !inventory) throw new UsageError(`--region applies to volumeclasses, flavors and images only, not ${kind}`);
      if (isVolumeClassKind(kind)) return getVolumeClasses(name, options);
      // the Region inventories (issue 16): loaded on use, so the other commands start fast
      if (isFlavorKind(kind)) return (await import('./get-flavors.js')).runGetFlavors(name, options);
      if (isImageKind(kind)) return (await import('./get-images.js')).getImagesCommand(name, options);
      // before opening the store: an unknown kind is a usage error whatever the store holds
      const stored = isSecretKind(kind) ? undefined : await storedKind(kind, [SECRET_NAMES, VOLUME_CLASS_NAMES, FLAVOR_NAMES, IMAGE_NAMES]);
      const [, { getResources }, { formatObjects }, { getSecrets, formatSecrets }] = await kube();
      await withSource(options, { create: false }, async (source) => {
        if (stored === undefined) {
          const secrets = await getSecrets(source, name, options.namespace === undefined ? {} : { namespace: options.namespace });
          return void console.log(formatSecrets(secrets, options.output as OutputFormat, { single: name !== undefined, showNamespace: options.namespace === undefined && name === undefined }));
        }
        const found =
          stored === 'Server' && name !== undefined
            ? { kind: stored, items: await serverByName(source, name, options.namespace ?? 'default') }
            : await getResources(source, kind, name, options.namespace === undefined ? {} : { namespace: options.namespace });
        if (found.items.length === 0 && name !== undefined) throw new (await import('../../kube/errors.js')).NotFound(stored, options.namespace ?? 'default', name);
        if (found.items.length === 0 && options.output === 'table') return void console.log(`No resources found.`);
        console.log(formatObjects(found.kind, found.items, options.output as OutputFormat, { single: name !== undefined, showNamespace: options.namespace === undefined && name === undefined, ...(stored === 'Server' ? { nameColumns: SERVER_NAME_COLUMNS } : {}) }));
      });
    });
  program
    .command('delete <kind> <name>')
    .description('delete a resource (it waits for its finalizers: the cloud resource is deleted first)')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('--resources <url>', 'resource source (see apply)')
    .option('--as <name>', 'who the deletion is by (default: the invoking user)')
    .action(async (kind: string, name: string, options: { namespace: string; resources?: string; as?: string }) => {
      if (!isSecretKind(kind)) await storedKind(kind, [SECRET_NAMES]);
      const [, { deleteResource }, , { deleteSecret }] = await kube();
      await withSource(options, { create: false }, async (source) =>
        console.log(isSecretKind(kind) ? await deleteSecret(source, name, options.namespace) : (await deleteResource(source, kind, name, options.namespace, cliAuthor(options.as))).message),
      );
    });
};
