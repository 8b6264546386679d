/**
 * A role's pod-template hash: a digest of everything that shapes its pods (image, the config's name and files, the
 * overlay, env names and the Secret keys they come from, the annotations, the TLS files' and the broker CA's Secret names and directories,
 * the listen port). No secret value is in it: env names a Secret key, and the rotation digests stand for the
 * values, so a rotated credential changes the hash through its digest annotation. Replicas and the PDB are not in
 * it: scaling a Deployment does not roll its pods, and neither may a changed replica count here.
 */
import { createHash } from 'node:crypto';
import type { RoleTemplate } from './port.js';

export type RoleTemplateInput = Omit<RoleTemplate, 'templateHash' | 'replicas' | 'podDisruptionBudget'> & Partial<Pick<RoleTemplate, 'replicas' | 'podDisruptionBudget'>>;

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  return value;
};

/** 16 hex characters of a SHA-256 over the canonical JSON of the pod-shaping part of the template. */
export const roleTemplateHash = (input: RoleTemplateInput): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        canonical({
          image: input.image,
          config: { name: input.config.name, files: input.config.files },
          overlay: input.overlay ?? null,
          env: input.env,
          annotations: input.annotations,
          databaseTls: input.databaseTls ?? [],
          messagingCA: input.messagingCA ?? null,
          port: input.port ?? null,
        }),
      ),
    )
    .digest('hex')
    .slice(0, 16);

/** The template with its hash. */
export const withTemplateHash = (input: RoleTemplateInput & Pick<RoleTemplate, 'replicas'>): RoleTemplate => ({ ...input, templateHash: roleTemplateHash(input) });
