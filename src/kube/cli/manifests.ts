/**
 * The operations behind `regent apply -f`, `regent get` and `regent delete`, written against the
 * port so the CLI works the same on the embedded store and on a cluster. `apiVersion: v1, kind:
 * Secret` documents go to the secret store (./secrets.ts); `apiVersion: v1, kind: Node` documents are stored
 * like a resource (the embedded default's Nodes, src/resources/node.ts); every other document must be a Regent
 * resource.
 *
 * applyManifests (one text) and applyManifestFiles (every `-f`) validate every document before they
 * apply any, so a typo in the third document does not leave the first two applied; they then apply
 * them in order. Every problem names its file (when known) and document.
 */
import { stampAuthor, type AuthorStamp } from '../../resource-history/author.js';
import { parseAllDocuments } from 'yaml';
import { API_VERSION, KIND_NAMES, type InputOf, type KindName, type ObjectOf } from '../../resources/index.js';
import { showValue } from '../../resources/codec/primitives.js';
import { BadRequest, Invalid, NotFound } from '../errors.js';
import { definitionOf, isKindName, qualifiedSingular, resolveKind, storedNamespace } from '../kinds.js';
import type { ApplyResult, DeleteResult, ResourceSource } from '../port.js';
import { applySecret, isSecretDocument, parseSecretDocument, type SecretDocument } from './secrets.js';

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

export interface ManifestOptions {
  /** Namespace for documents that name none. Default `default`. */
  readonly namespace?: string;
  /** The file the text came from (`-` for stdin), named in every problem so `-f a.yaml -f b.yaml` says which. */
  readonly file?: string;
  /** Who applies (src/resource-history/author.ts): stamped on every resource whose spec the apply changes. */
  readonly author?: AuthorStamp;
}

/** One manifest file's text, and the name the user gave it (`-` for stdin; none for a text of unknown origin). */
export interface ManifestFile {
  readonly file?: string;
  readonly text: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Document = { readonly where: string; readonly input: InputOf<KindName> } | { readonly where: string; readonly secret: SecretDocument; readonly warnings: readonly string[] };

interface Parsed {
  readonly documents: Document[];
  readonly problems: string[];
  readonly causes: Invalid['causes'][number][];
}

/** The yaml library's message ends in a code frame over several lines; its first line already names the line and column. */
const yamlProblem = (message: string | undefined): string => (message ?? 'invalid YAML').split('\n')[0]!.replace(/:$/, '');

/** How deep a document may nest: far beyond any resource, short of the stack (validation and storage recurse). */
const MAX_DEPTH = 512;

/**
 * Why a document's value cannot be a resource although it is valid YAML: an alias that refers to a node containing
 * it (a cycle: no JSON has one) or nesting deeper than MAX_DEPTH. Undefined when it is a tree of JSON-like values.
 */
export const shapeProblem = (value: unknown, ancestors: readonly object[] = []): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  if (ancestors.includes(value)) return 'a YAML alias refers to a node that contains it (a cycle)';
  if (ancestors.length >= MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
  const path = [...ancestors, value];
  for (const item of Object.values(value)) {
    const problem = shapeProblem(item, path);
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/** The document's value, or why it cannot be read (the yaml library's refusal, e.g. an alias count that expands exponentially). */
const documentValue = (doc: ReturnType<typeof parseAllDocuments>[number]): { value: unknown } | { problem: string } => {
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    return { problem: yamlProblem(error instanceof Error ? error.message : String(error)) };
  }
  const problem = shapeProblem(value);
  return problem === undefined ? { value } : { problem };
};

const parseDocuments = (yamlText: string, options: ManifestOptions): Parsed => {
  const parsed: Parsed = { documents: [], problems: [], causes: [] };
  // logLevel error: the yaml library would otherwise print process warnings (a collection used as a key) on regent's stderr
  parseAllDocuments(yamlText, { logLevel: 'error' }).forEach((doc, index) => {
    const where = `${options.file === undefined ? '' : `${options.file}: `}document ${index + 1}`;
    if (doc.errors.length > 0) return void parsed.problems.push(`${where}: ${yamlProblem(doc.errors[0]?.message)}`);
    const read = documentValue(doc);
    if ('problem' in read) return void parsed.problems.push(`${where}: ${read.problem}`);
    const { value } = read;
    if (value === null || value === undefined) return; // an empty document (a trailing ---)
    if (!isObject(value)) return void parsed.problems.push(`${where}: not an object`);
    if (isSecretDocument(value)) {
      const secret = parseSecretDocument(value, where, options.namespace ?? 'default');
      parsed.problems.push(...secret.problems);
      parsed.causes.push(...secret.causes);
      if (secret.secret) parsed.documents.push({ where, secret: secret.secret, warnings: secret.warnings });
      return;
    }
    if (typeof value.kind !== 'string' || !isKindName(value.kind) || value.apiVersion !== definitionOf(value.kind).apiVersion) {
      return void parsed.problems.push(`${where}: not a Regent resource (apiVersion ${showValue(value.apiVersion)}, kind ${showValue(value.kind)}); expected apiVersion ${API_VERSION} and one of the kinds ${KIND_NAMES.join(', ')}; or apiVersion v1 and kind Secret or Node`);
    }
    const metadata = isObject(value.metadata) ? value.metadata : {};
    const input = { ...value, metadata: { ...metadata, namespace: storedNamespace(value.kind, (metadata.namespace as string | undefined) ?? options.namespace ?? 'default') } };
    const result = definitionOf(value.kind).validate(input);
    if (!result.ok) {
      parsed.problems.push(`${where}: ${result.message}`);
      parsed.causes.push(...result.errors);
      return;
    }
    parsed.documents.push({ where, input: input as InputOf<KindName> });
  });
  return parsed;
};

/** Throws BadRequest or Invalid listing every problem, one per line. */
const refuseProblems = (parsed: readonly Parsed[]): void => {
  const problems = parsed.flatMap((p) => p.problems);
  const causes = parsed.flatMap((p) => p.causes);
  if (problems.length === 0) return;
  const message = problems.join('\n');
  throw causes.length > 0 ? new Invalid(message, causes) : new BadRequest(message);
};

/**
 * Parses multi-document YAML into validated Regent resources; throws BadRequest or Invalid naming the
 * file and document. A Secret document is refused here (it is not a resource): applyManifests takes it.
 */
export const parseManifests = (yamlText: string, options: ManifestOptions = {}): InputOf<KindName>[] => {
  const parsed = parseDocuments(yamlText, options);
  refuseProblems([parsed]);
  const secrets = parsed.documents.filter((d) => 'secret' in d).map((d) => `${d.where}: a Secret, not a Regent resource (applyManifests puts it into the secret store)`);
  if (secrets.length > 0) throw new BadRequest(secrets.join('\n'));
  return parsed.documents.flatMap((d) => ('input' in d ? [d.input] : []));
};

/** One document of a manifest as `apply` validated it: a Regent resource's input, or a Secret (its data never shown). */
export type ManifestDocument = Document;

/**
 * Every document of every file, validated exactly as applyManifestFiles validates them before it applies any (the
 * same BadRequest or Invalid, naming file and document), with nothing applied: what `regent plan` reads.
 */
export const parseManifestFiles = (files: readonly ManifestFile[], options: Omit<ManifestOptions, 'file'> = {}): ManifestDocument[] => {
  const parsed = files.map(({ file, text }) => parseDocuments(text, file === undefined ? options : { ...options, file }));
  refuseProblems(parsed);
  return parsed.flatMap((p) => p.documents);
};

/** A refusal of the store (a rule only it checks, as an immutable field) as `apply` reports it: naming the document. */
const namedRefusal = (where: string, error: Invalid): Invalid => new Invalid(`${where}: ${error.message}`, error.causes);

/** What the store would make of one document: the input as it validates it, or the refusal `apply` would report. */
export type ApplyCheck = { readonly ok: true; readonly value: InputOf<KindName> } | { readonly ok: false; readonly refusal: Invalid };

/**
 * The store's own check of one document over the stored object (undefined: a create), without writing: the kind's
 * rules between the two (immutable fields, the forward-only rebuild policy …), as the embedded store runs them on a
 * write, and the refusal named as applyManifestFiles names it.
 */
export const applyCheck = (where: string, input: InputOf<KindName>, stored: ObjectOf<KindName> | undefined): ApplyCheck => {
  const result = definitionOf(input.kind).validate({ ...input, status: undefined }, stored);
  return result.ok ? { ok: true, value: result.value as InputOf<KindName> } : { ok: false, refusal: namedRefusal(where, new Invalid(result.message, result.errors)) };
};

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
