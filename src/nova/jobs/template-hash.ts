/**
 * The pod-template hash of a Job or CronJob: a digest of everything that shapes its pod (image, script, env
 * names and their sources, config files, deadline, the database TLS files' Secret names, keys and directory).
 * Secret values are not in it (env and the TLS files name a Secret key, never carry the value), so the hash can be
 * stored in events and annotations. The TLS files enter the digest only when there are any, so the hash of a Job
 * without them is the one it had before TLS was built (no Job re-runs for it).
 */
import { createHash } from 'node:crypto';
import type { DatabaseTlsMount, JobEnv } from './port.js';

export interface TemplateInput {
  image: string;
  script: string;
  env: readonly JobEnv[];
  config: { files: Readonly<Record<string, string>> };
  activeDeadlineSeconds?: number;
  databaseTls?: readonly DatabaseTlsMount[];
}

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
};

/** 16 hex characters of a SHA-256 over the canonical JSON of the template. */
export const templateHash = (input: TemplateInput): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        canonical({
          image: input.image,
          script: input.script,
          env: input.env,
          files: input.config.files,
          deadline: input.activeDeadlineSeconds ?? null,
          ...(input.databaseTls !== undefined && input.databaseTls.length > 0 ? { databaseTls: input.databaseTls } : {}),
        }),
      ),
    )
    .digest('hex')
    .slice(0, 16);

export const TEMPLATE_HASH_ANNOTATION = 'nova.c5c3.io/pod-template-hash';
