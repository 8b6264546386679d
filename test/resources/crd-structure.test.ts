/**
 * What the API server requires of a CRD before it accepts it, and what Regent requires of its own:
 * group/version/scope, a status subresource, printer columns matching the kind definitions (the CLI
 * prints the same columns as kubectl), structural schemas, and bounds on every list, map and string
 * a CEL rule may walk (the API server rejects rules whose cost it cannot bound).
 */
import { expect } from 'chai';
import { KINDS } from '../../src/resources/index.js';
import { loadCrds } from './support/crds.js';
import { evaluateCel } from './support/cel.js';
import type { Schema } from './support/openapi.js';

const walk = (schema: Schema, path: string, visit: (schema: Schema, path: string) => void): void => {
  visit(schema, path);
  for (const [key, child] of Object.entries(schema.properties ?? {})) walk(child, `${path}.${key}`, visit);
  if (schema.items) walk(schema.items, `${path}[]`, visit);
  if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${path}{}`, visit);
};

describe('CRDs', () => {
  const crds = loadCrds();

  it('there is exactly one CRD per kind and one kind per CRD', () => {
    expect(crds.map((c) => c.spec.names.kind).sort()).to.deep.equal(KINDS.map((k) => k.kind).sort());
  });

  for (const crd of crds) {
    describe(crd.file, () => {
      const definition = KINDS.find((k) => k.kind === crd.spec.names.kind)!;
      const version = crd.spec.versions[0]!;
      const root = version.schema.openAPIV3Schema;

      it('is namespaced in group regent.dev, served and stored as v1alpha1, with a status subresource', () => {
        expect(crd.metadata.name).to.equal(`${definition.plural}.regent.dev`);
        expect(crd.spec.group).to.equal('regent.dev');
        expect(crd.spec.scope).to.equal('Namespaced');
        expect(crd.spec.versions).to.have.length(1);
        expect(version).to.include({ name: 'v1alpha1', served: true, storage: true });
        expect(version.subresources?.status).to.deep.equal({});
      });

      it('names match the kind definition, so the CLI resolves the same names as kubectl', () => {
        expect(crd.spec.names).to.deep.include({ kind: definition.kind, listKind: definition.listKind, plural: definition.plural, singular: definition.singular });
        expect(crd.spec.names.shortNames ?? []).to.deep.equal([...definition.shortNames]);
      });

      it('printer columns are the kind definition columns: summary condition, reason, phase, age', () => {
        expect(version.additionalPrinterColumns).to.deep.equal(definition.columns.map((c) => ({ ...c })));
      });

      it('the schema is structural: every node has a type, spec is required, status has conditions', () => {
        walk(root, '', (schema, path) => expect(schema.type, `type at ${path || '<root>'}`).to.be.a('string'));
        expect(root.required).to.deep.equal(['spec']);
        expect(root.properties?.status?.properties?.conditions?.['x-kubernetes-list-type']).to.equal('map');
      });

      it('list-map keys are required item fields, and every list, map and string a rule can walk is bounded', () => {
        walk(root.properties!.spec!, 'spec', (schema, path) => {
          if (schema['x-kubernetes-list-type'] === 'map') {
            for (const key of schema['x-kubernetes-list-map-keys'] ?? []) expect(schema.items?.required, `${path} map key ${key}`).to.include(key);
          }
          if (schema.type === 'array') expect(schema.maxItems, `maxItems at ${path}`).to.be.a('number');
          if (schema.type === 'object' && typeof schema.additionalProperties === 'object') expect(schema.maxProperties, `maxProperties at ${path}`).to.be.a('number');
          if (schema.type === 'string' && !schema.enum && schema.format !== 'uuid' && schema.pattern === undefined) expect(schema.maxLength, `maxLength at ${path}`).to.be.a('number');
        });
      });

      it('every CEL rule parses and has a message', () => {
        walk(root, '', (schema, path) => {
          for (const rule of schema['x-kubernetes-validations'] ?? []) {
            expect(rule.message, `message of ${rule.rule} at ${path}`).to.be.a('string');
            try {
              evaluateCel(rule.rule, { self: {}, oldSelf: {} });
            } catch (error) {
              // Evaluation over empty objects may fail on a missing key; a parse error may not.
              expect((error as Error).message, `${rule.rule} at ${path}`).to.not.match(/unexpected|expected '|unterminated|trailing|unsupported/);
            }
          }
        });
      });
    });
  }
});
