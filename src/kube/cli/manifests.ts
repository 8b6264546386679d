/**
 * The operations behind `regent apply -f`, `regent get` and `regent delete`, written against the
 * port so the CLI works the same on the embedded store and on a cluster. `apiVersion: v1, kind:
 * Secret` documents go to the secret store (./secrets.ts); `apiVersion: v1, kind: Node` documents are stored
 * like a resource (the embedded default's Nodes, src/resources/node.ts); every other document must be a Regent
 * resource.
 *
 * applyManifests (one text) and applyManifestFiles (every `-f`) validate every document before they
 * apply any, so a typo in the third document does not leave the first two applied; they then apply
 * them in order. Every problem names its file (when known) and document. Reading and checking documents without
 * writing (what `regent plan` needs) is ./manifest-documents.ts.
 */
import { stampAuthor, type AuthorStamp } from '../../resource-history/author.js';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { Invalid, NotFound } from '../errors.js';
import { qualifiedSingular, resolveKind } from '../kinds.js';
import type { ApplyResult, DeleteResult, ResourceSource } from '../port.js';
import { applySecret } from './secrets.js';

export interface ResourceApplyOutcome {
  readonly kind: KindName;
  readonly namespace: string;
  readonly name: string;
  readonly action: ApplyResult['action'];
  readonly warnings: readonly string[];
  readonly object: ObjectOf<KindName>;
}

/** A Secret document put into the secret store: its version and keys, never its data. */
export interface SecretApplyOutcome {
  readonly kind: 'Secret';
  readonly namespace: string;
  readonly name: string;
  readonly action: ApplyResult['action'];
  readonly warnings: readonly string[];
  readonly version: string;
  readonly keys: readonly string[];
}

export type ApplyOutcome = ResourceApplyOutcome | SecretApplyOutcome;

export { applyCheck, parseManifestFiles, parseManifests, shapeProblem, type ApplyCheck, type ManifestDocument, type ManifestFile, type ManifestOptions } from './manifest-documents.js';
import { namedRefusal, parseManifestFiles, type ManifestFile, type ManifestOptions } from './manifest-documents.js';

/**
 * Creates or updates every Regent resource in several manifest files (spec, labels, annotations).
 * Every document of every file is validated first, so an invalid document in the second file does
 * not leave the first file applied.
 */
export const applyManifestFiles = async (source: ResourceSource, files: readonly ManifestFile[], options: Omit<ManifestOptions, 'file'> = {}): Promise<ApplyOutcome[]> => {
  const outcomes: ApplyOutcome[] = [];
  for (const document of parseManifestFiles(files, options)) {
    if ('secret' in document) {
      const { where, secret, warnings } = document;
      let applied: Awaited<ReturnType<typeof applySecret>>;
      try {
        applied = await applySecret(source, secret);
      } catch (error) {
        if (error instanceof Invalid) throw new Invalid(`${where}: ${error.message}`, error.causes);
        throw error;
      }
      const { action, version } = applied;
      outcomes.push({ kind: 'Secret', namespace: secret.namespace, name: secret.name, action, warnings, version, keys: Object.keys(secret.data).sort() });
      continue;
    }
    const { where, input } = document;
    let result: ApplyResult;
    try {
      result = await source.apply(stampAuthor(input, options.author));
    } catch (error) {
      // A rule only the store checks (an immutable field): name the document, as a schema error does.
      if (error instanceof Invalid) throw namedRefusal(where, error);
      throw error;
    }
    const { namespace, name } = result.object.metadata;
    outcomes.push({ kind: input.kind, namespace, name, action: result.action, warnings: result.warnings, object: result.object });
  }
  return outcomes;
};

/** Creates or updates every Regent resource in a multi-document YAML text (spec, labels, annotations). */
export const applyManifests = async (source: ResourceSource, yamlText: string, options: ManifestOptions = {}): Promise<ApplyOutcome[]> => {
  const { file, ...rest } = options;
  return applyManifestFiles(source, [file === undefined ? { text: yamlText } : { file, text: yamlText }], rest);
};

/** kubectl's wording: `server.regent.dev/web-1 created`, `secret/db-credentials created`. */
export const describeApplyOutcome = (outcome: ApplyOutcome): string =>
  outcome.kind === 'Secret' ? `secret/${outcome.name} ${outcome.action}` : `${qualifiedSingular(outcome.kind)}/${outcome.name} ${outcome.action}`;

export interface GetOptions {
  /** Namespace to list or get in; omitted with no name: every namespace. */
  readonly namespace?: string;
}

/** `regent get <kind> [name]`: the kind name in any spelling kubectl accepts. */
export const getResources = async (source: ResourceSource, kindName: string, name?: string, options: GetOptions = {}): Promise<{ kind: KindName; items: ObjectOf<KindName>[] }> => {
  const kind = resolveKind(kindName);
  if (name !== undefined) {
    const namespace = options.namespace ?? 'default';
    const object = await source.get(kind, namespace, name);
    if (object === undefined) throw new NotFound(kind, namespace, name);
    return { kind, items: [object] };
  }
  return { kind, items: (await source.list(kind, options.namespace)).items };
};

/** `regent delete <kind> <name>`: the result, and kubectl's wording for it. */
export const deleteResource = async (source: ResourceSource, kindName: string, name: string, namespace = 'default', author?: AuthorStamp): Promise<DeleteResult & { message: string }> => {
  const kind = resolveKind(kindName);
  const result = await source.delete(kind, namespace, name, author ? { author } : {});
  const what = `${qualifiedSingular(kind)} "${name}"`;
  const waiting = result.object?.metadata.finalizers ?? [];
  return { ...result, message: result.deleted ? `${what} deleted` : `${what} marked for deletion (waiting for finalizers: ${waiting.join(', ')})` };
};
