/**
 * Rotation digests (nova-operator.md, "Rotation and deletion"; issue 26). Every credential a Nova role reads is
 * delivered as environment, so a rotated value takes effect only when the pods restart. The credential steps digest
 * each value into a pod-template annotation (`nova.c5c3.io/<credential>-hash`), so a changed value changes the
 * template of exactly the workloads that carry that annotation, and only those roll.
 *
 * A digest is SHA-256 of the value, hex: one-way, so the annotation (readable by anyone who can read a Deployment)
 * never carries the credential. It is stamped only while the value is non-empty: a pass that stopped at a credential
 * gate, or read an empty key, hands the workload steps no digest for it, and mergeDigestAnnotations then keeps the
 * annotation the template already has — clearing it instead would change every template and roll every pod over a
 * Secret that is merely missing for a moment.
 *
 * Pure: no I/O, no clock.
 */
import { createHash } from 'node:crypto';

/** The hex SHA-256 of a non-empty value; undefined for an empty or absent one (nothing to stamp). */
export const digestOf = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * Records the digest of `value` under `annotation` in the pass's digests when the value is non-empty; otherwise the
 * record is left as it is (an earlier digest of this pass, or none). Returns the digest it stamped.
 */
export const stampDigest = (digests: Record<string, string>, annotation: string, value: string | undefined): string | undefined => {
  const digest = digestOf(value);
  if (digest !== undefined) digests[annotation] = digest;
  return digest;
};

/**
 * A pod template's annotations after this pass: the digests this pass stamped (only those among `carried`, the
 * annotations this workload carries) over the annotations the template has now. A digest this pass did not stamp
 * keeps its current annotation, so a gate that stopped early never clears one; annotations that are not digests
 * are kept as they are.
 */
export const mergeDigestAnnotations = (
  current: Readonly<Record<string, string>>,
  stamped: Readonly<Record<string, string>>,
  carried: readonly string[],
): Record<string, string> => {
  const next = { ...current };
  for (const annotation of carried) {
    const digest = stamped[annotation];
    if (digest !== undefined && digest !== '') next[annotation] = digest;
  }
  return next;
};
