/** Loads the CRDs from deploy/crds so tests read exactly what `kubectl apply` would install. */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Schema } from './openapi.js';

export const CRD_DIR = fileURLToPath(new URL('../../../deploy/crds/', import.meta.url));

export interface Crd {
  file: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[] };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: object };
      additionalPrinterColumns?: Array<{ name: string; type: string; jsonPath: string; priority?: number }>;
      schema: { openAPIV3Schema: Schema };
    }>;
  };
}

export const loadCrds = (): Crd[] =>
  readdirSync(CRD_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, ...(parse(readFileSync(join(CRD_DIR, file), 'utf8')) as Omit<Crd, 'file'>) }));

export const crdFor = (kind: string): Crd => {
  const crd = loadCrds().find((c) => c.spec.names.kind === kind);
  if (!crd) throw new Error(`no CRD for kind ${kind} in ${CRD_DIR}`);
  return crd;
};

export const schemaFor = (kind: string): Schema => {
  const version = crdFor(kind).spec.versions[0];
  if (!version) throw new Error(`CRD for ${kind} has no versions`);
  return version.schema.openAPIV3Schema;
};
