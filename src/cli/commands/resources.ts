/**
 * `regent apply -f`, `regent get`, `regent delete`: desired state in the resource source, and
 * secrets in its secret store (`kind: Secret` documents; `get secrets` prints names and keys, never
 * a value; `delete secret <name>`). `get volumeclasses` is not a stored kind: it reads each Region's
 * exported VolumeClasses from its cloud (src/kube/cli/volume-classes.ts).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { OutputFormat } from '../../kube/cli/output.js';
import type { GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { withSource } from './with-source.js';

// re-exported: region.ts and start.ts read the URL from here
export { resourcesUrlOf } from './with-source.js';

const kube = () => Promise.all([import('../../kube/open.js'), import('../../kube/cli/manifests.js'), import('../../kube/cli/output.js'), import('../../kube/cli/secrets.js')]);

/** kubectl's names for secrets (not imported from kube/cli/secrets.ts: this module must load fast). */
const isSecretKind = (kind: string): boolean => ['secret', 'secrets'].includes(kind.toLowerCase());
/** The names of Region-exported VolumeClasses (kube/cli/volume-classes.ts isVolumeClassKind; not imported, same reason). */
const isVolumeClassKind = (kind: string): boolean => ['volumeclass', 'volumeclasses', 'vc'].includes(kind.toLowerCase());
/** Region-exported flavors and images (get-flavors.ts isFlavorKind; get-images.ts): not stored kinds either. */
const isFlavorKind = (kind: string): boolean => ['flavor', 'flavors', 'fl'].includes(kind.toLowerCase());
const isImageKind = (kind: string): boolean => ['image', 'images', 'img'].includes(kind.toLowerCase());


const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `regent get volumeclasses`: connects to each Region with its Secret (loaded on use, so the other commands start fast). */
const getVolumeClasses = async (name: string | undefined, options: { namespace?: string; output: string; region?: string; resources?: string }): Promise<void> => {
  const [volumeClasses, session, { createLogger }] = await Promise.all([import('../../kube/cli/volume-classes.js'), import('../../openstack/session.js'), import('../../log/logger.js')]);
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

export const registerResourceCommands = (program: Command, _globals: () => GlobalOptions) => {
  program
    .command('apply')
    .description('create or update resources from YAML manifests (validated like the CRD schemas); v1 Secret documents go to the secret store')
    .requiredOption('-f, --filename <file>', 'a manifest file (repeatable; - for stdin)', collect)
    .option('--resources <url>', 'resource source: embedded:<path> (default embedded:./data/resources.db, or $REGENT_RESOURCES) | kubernetes[:<context>]')
    .action(async (options: { filename: string[]; resources?: string }) => {
      const files = options.filename.map((file) => {
        try {
          return { file, text: readFileSync(file === '-' ? 0 : file, 'utf8') };
        } catch {
          throw new UsageError(`cannot read ${file}`);
        }
      });
      const [, { applyManifestFiles, describeApplyOutcome }] = await kube();
      await withSource(options, { create: true }, async (source) => {
        for (const outcome of await applyManifestFiles(source, files)) {
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
      const [, { getResources }, { formatObjects }, { getSecrets, formatSecrets }] = await kube();
      await withSource(options, { create: false }, async (source) => {
        if (isSecretKind(kind)) {
          const secrets = await getSecrets(source, name, options.namespace === undefined ? {} : { namespace: options.namespace });
          return void console.log(formatSecrets(secrets, options.output as OutputFormat, { single: name !== undefined, showNamespace: options.namespace === undefined && name === undefined }));
        }
        const found = await getResources(source, kind, name, options.namespace === undefined ? {} : { namespace: options.namespace });
        if (found.items.length === 0 && options.output === 'table') return void console.log(`No resources found.`);
        console.log(formatObjects(found.kind, found.items, options.output as OutputFormat, { single: name !== undefined, showNamespace: options.namespace === undefined && name === undefined }));
      });
    });
  program
    .command('delete <kind> <name>')
    .description('delete a resource (it waits for its finalizers: the cloud resource is deleted first)')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('--resources <url>', 'resource source (see apply)')
    .action(async (kind: string, name: string, options: { namespace: string; resources?: string }) => {
      const [, { deleteResource }, , { deleteSecret }] = await kube();
      await withSource(options, { create: false }, async (source) =>
        console.log(isSecretKind(kind) ? await deleteSecret(source, name, options.namespace) : (await deleteResource(source, kind, name, options.namespace)).message),
      );
    });
};
