/**
 * Manifests read as `apply` reads them, with nothing written: multi-document YAML parsed and each document validated
 * (a Regent resource against its kind's schema, a v1 Secret as the secret store takes it), every problem named by
 * file and document; and the store's own check of one document over the stored object (`applyCheck`). What
 * `regent plan`, the REST dry run and the audit plan view read; ./manifests.ts applies them.
 */
import { parseAllDocuments } from 'yaml';
import type { AuthorStamp } from '../../resource-history/author.js';
import { API_VERSION, KIND_NAMES, type InputOf, type KindName, type ObjectOf } from '../../resources/index.js';
import { showValue } from '../../resources/codec/primitives.js';
import { BadRequest, Invalid } from '../errors.js';
import { definitionOf, isKindName, storedNamespace } from '../kinds.js';
import { isSecretDocument, parseSecretDocument, type SecretDocument } from './secret-documents.js';

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
export const namedRefusal = (where: string, error: Invalid): Invalid => new Invalid(`${where}: ${error.message}`, error.causes);

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
