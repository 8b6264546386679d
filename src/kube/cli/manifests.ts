/**
 * The operations behind `regent apply -f`, `regent get` and `regent delete`, written against the
 * port so the CLI works the same on the embedded store and on a cluster.
 *
 * applyManifests validates every document before it applies any, so a typo in the third document
 * does not leave the first two applied; it then applies them in document order.
 */
import { parseAllDocuments } from 'yaml';
import { API_VERSION, type InputOf, type KindName, type ObjectOf } from '../../resources/index.js';
import { BadRequest, Invalid, NotFound } from '../errors.js';
import { definitionOf, isKindName, resolveKind } from '../kinds.js';
import type { ApplyResult, DeleteResult, ResourceSource } from '../port.js';

export interface ApplyOutcome {
  readonly kind: KindName;
  readonly namespace: string;
  readonly name: string;
  readonly action: ApplyResult['action'];
  readonly warnings: readonly string[];
  readonly object: ObjectOf<KindName>;
}

export interface ManifestOptions {
  /** Namespace for documents that name none. Default `default`. */
  readonly namespace?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses multi-document YAML into validated inputs; throws BadRequest or Invalid naming the document. */
export const parseManifests = (yamlText: string, options: ManifestOptions = {}): InputOf<KindName>[] => {
  const documents = parseAllDocuments(yamlText);
  const inputs: InputOf<KindName>[] = [];
  const problems: string[] = [];
  const causes: Invalid['causes'][number][] = [];
  documents.forEach((doc, index) => {
    const where = `document ${index + 1}`;
    if (doc.errors.length > 0) {
      problems.push(`${where}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
      return;
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return; // an empty document (a trailing ---)
    if (!isObject(value)) return void problems.push(`${where}: not an object`);
    if (value.apiVersion !== API_VERSION || typeof value.kind !== 'string' || !isKindName(value.kind)) {
      return void problems.push(`${where}: not a Regent resource (apiVersion ${JSON.stringify(value.apiVersion)}, kind ${JSON.stringify(value.kind)}); expected apiVersion ${API_VERSION}`);
    }
    const metadata = isObject(value.metadata) ? value.metadata : {};
    const input = { ...value, metadata: { ...metadata, namespace: (metadata.namespace as string | undefined) ?? options.namespace ?? 'default' } };
    const result = definitionOf(value.kind).validate(input);
    if (!result.ok) {
      problems.push(`${where}: ${result.message}`);
      causes.push(...result.errors);
      return;
    }
    inputs.push(input as InputOf<KindName>);
  });
  if (problems.length > 0) {
    const message = problems.join('\n');
    throw causes.length > 0 ? new Invalid(message, causes) : new BadRequest(message);
  }
  return inputs;
};

/** Creates or updates every Regent resource in a multi-document YAML text (spec, labels, annotations). */
export const applyManifests = async (source: ResourceSource, yamlText: string, options: ManifestOptions = {}): Promise<ApplyOutcome[]> => {
  const outcomes: ApplyOutcome[] = [];
  for (const input of parseManifests(yamlText, options)) {
    const result = await source.apply(input);
    const { namespace, name } = result.object.metadata;
    outcomes.push({ kind: input.kind, namespace, name, action: result.action, warnings: result.warnings, object: result.object });
  }
  return outcomes;
};

/** kubectl's wording: `server.regent.dev/web-1 created`. */
export const describeApplyOutcome = (outcome: ApplyOutcome): string => `${definitionOf(outcome.kind).singular}.regent.dev/${outcome.name} ${outcome.action}`;

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
export const deleteResource = async (source: ResourceSource, kindName: string, name: string, namespace = 'default'): Promise<DeleteResult & { message: string }> => {
  const kind = resolveKind(kindName);
  const result = await source.delete(kind, namespace, name);
  const what = `${definitionOf(kind).singular}.regent.dev "${name}"`;
  const waiting = result.object?.metadata.finalizers ?? [];
  return { ...result, message: result.deleted ? `${what} deleted` : `${what} marked for deletion (waiting for finalizers: ${waiting.join(', ')})` };
};
