/**
 * The OpenAPI document (openapi.yaml) as the contract at run time: request bodies are validated
 * against its component schemas (ajv's 2020-12 draft class, the dialect of OpenAPI 3.1), and the
 * tests validate every response against the same document.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import YAML from 'yaml';

export const OPENAPI_PATH = fileURLToPath(new URL('./openapi.yaml', import.meta.url));

let cachedText: string | undefined;
export const openApiText = (): string => (cachedText ??= readFileSync(OPENAPI_PATH, 'utf8'));

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
}

let cachedDocument: OpenApiDocument | undefined;
export const openApiDocument = (): OpenApiDocument => (cachedDocument ??= YAML.parse(openApiText(), { merge: true }) as OpenApiDocument);

const DOCUMENT_ID = 'regent-openapi';

/** A validator per component schema name, all compiled against one copy of the document. */
export class SchemaValidators {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument = openApiDocument()) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false });
    this.ajv.addSchema({ $id: DOCUMENT_ID, paths: document.paths, components: document.components }, DOCUMENT_ID);
  }

  /** The validator of a `#/components/schemas/<name>` or of any JSON pointer into the document. */
  forRef(ref: string): ValidateFunction {
    let v = this.compiled.get(ref);
    if (!v) {
      v = this.ajv.compile({ $ref: `${DOCUMENT_ID}${ref}` });
      this.compiled.set(ref, v);
    }
    return v;
  }

  schema(name: string): ValidateFunction {
    return this.forRef(`#/components/schemas/${name}`);
  }
}

/** A JSON pointer (`/spec/securityGroups/0`) as a field path (`spec.securityGroups[0]`). */
export const fieldPath = (pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');

/** The first schema error as a sentence that names the field. */
export const describeSchemaError = (error: ErrorObject): string => {
  const at = fieldPath(error.instancePath);
  const join = (name: string) => (at === '' ? name : `${at}.${name}`);
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field "${join(String(error.params.additionalProperty))}"`;
    case 'required':
      return `missing required field "${join(String(error.params.missingProperty))}"`;
    case 'type':
      return `field "${at === '' ? '(body)' : at}" must be of type ${String(error.params.type)}`;
    default:
      return `field "${at === '' ? '(body)' : at}" ${error.message ?? 'is invalid'}`;
  }
};

const pointer = (...parts: string[]): string => `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/**
 * The validator of a response's JSON body as the document declares it for this path template,
 * method and status; undefined when the document declares no JSON body there. Throws when the
 * document does not declare the status at all.
 */
export const responseValidator = (validators: SchemaValidators, template: string, method: string, status: number, document: OpenApiDocument = openApiDocument()): ValidateFunction | undefined => {
  const operation = document.paths[template]?.[method.toLowerCase()] as { responses?: Record<string, { $ref?: string; content?: Record<string, unknown> }> } | undefined;
  if (!operation) throw new Error(`the document has no operation ${method} ${template}`);
  const response = operation.responses?.[String(status)];
  if (!response) throw new Error(`the document declares no ${status} for ${method} ${template}`);
  if (response.$ref) {
    const name = response.$ref.split('/').pop() as string;
    return document.components.responses[name]?.content?.['application/json'] ? validators.forRef(pointer('components', 'responses', name, 'content', 'application/json', 'schema')) : undefined;
  }
  return response.content?.['application/json'] ? validators.forRef(pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')) : undefined;
};
