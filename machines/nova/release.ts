/**
 * OpenStack release grammar and the upgrade-path rules — nova-operator.md, "Database" (the lockstep check of a
 * tag-pinned spec.image against spec.openStackRelease) and "Release upgrade" (the path gate: VersionParseError,
 * DowngradeNotSupported, UpgradePathInvalid).
 *
 * A release is `YYYY.N` with N ∈ {1, 2} (OpenStack ships two releases a year: 2025.2 is followed by 2026.1). The
 * year is four digits without a leading zero; nothing else parses (no whitespace, no `v` prefix, no patch part:
 * a patch suffix belongs to an image tag, never to a release).
 *
 * Pure: no I/O, no clock. It lives below the machines because novaUpgrade decides with it (NU3, NU4); a machine
 * importing it from src/nova ran up the layers (issue 25).
 */

export interface Release {
  readonly year: number;
  /** 1 (the spring release) or 2 (the autumn release). */
  readonly n: 1 | 2;
}

const RELEASE = /^([1-9][0-9]{3})\.([12])$/;

/** `YYYY.N` → the release, or null when the string is not exactly a release. */
export function parseRelease(s: string): Release | null {
  const m = RELEASE.exec(s);
  if (!m) return null;
  return { year: Number(m[1]), n: m[2] === '1' ? 1 : 2 };
}

export function formatRelease(r: Release): string {
  return `${r.year}.${r.n}`;
}

/** Releases in order: 2025.2 < 2026.1 < 2026.2. */
function ordinal(r: Release): number {
  return r.year * 2 + (r.n - 1);
}

/**
 * A tag that names release R: exactly `R`, or `R-<suffix>` (a patch build such as 2026.1-p1 "still matches
 * 2026.1"). `2026.1.3` or `2026.10` do not name 2026.1: only a `-` separates a suffix, so a longer version is
 * never read as a shorter one.
 */
const RELEASE_TAG = /^([1-9][0-9]{3}\.[12])(?:-[A-Za-z0-9_.-]+)?$/;

/**
 * The release a tag-pinned image names, or null when it carries no comparable release: a digest-pinned image
 * (`name@sha256:…`, also `name:tag@sha256:…`, where the digest is what runs and the tag is only a comment), an
 * image without a tag, or a tag that does not name a release. The tag is the part after the last `:` of the last
 * path segment, so a registry port (`registry:5000/nova:2026.1`) is never read as a tag.
 */
export function imageRelease(image: string): Release | null {
  if (image.includes('@')) return null;
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  if (colon < 0) return null;
  const m = RELEASE_TAG.exec(lastSegment.slice(colon + 1));
  return m ? parseRelease(m[1]!) : null;
}

export type PathKind = 'sequential' | 'patch' | 'downgrade' | 'jump';

/**
 * How target relates to installed: 'patch' (the same release), 'downgrade' (an earlier one), 'sequential'
 * (exactly one step forward: 2026.1 → 2026.2, or 2026.2 → 2027.1), 'jump' (later, but skipping a release).
 */
export function classifyPath(installed: Release, target: Release): PathKind {
  const d = ordinal(target) - ordinal(installed);
  if (d === 0) return 'patch';
  if (d < 0) return 'downgrade';
  return d === 1 ? 'sequential' : 'jump';
}

export type UpgradePathVerdict =
  | { ok: true; kind: 'sequential' | 'patch' }
  | { ok: false; reason: 'VersionParseError' | 'DowngradeNotSupported' | 'UpgradePathInvalid'; message: string };

const GRAMMAR = 'a release is YYYY.N with N 1 or 2';

/**
 * The path gate of "Release upgrade": installedRelease → spec.openStackRelease. The first failure wins, in the
 * order parse, downgrade, non-sequential; every message names both releases.
 */
export function validateUpgradePath(installed: string, target: string): UpgradePathVerdict {
  const from = parseRelease(installed);
  const to = parseRelease(target);
  if (!from || !to) {
    const bad = [!from ? `installed release "${installed}"` : null, !to ? `target release "${target}"` : null].filter((x) => x !== null).join(' and ');
    return { ok: false, reason: 'VersionParseError', message: `cannot upgrade from "${installed}" to "${target}": ${bad} does not parse (${GRAMMAR})` };
  }
  const kind = classifyPath(from, to);
  switch (kind) {
    case 'sequential':
    case 'patch':
      return { ok: true, kind };
    case 'downgrade':
      return { ok: false, reason: 'DowngradeNotSupported', message: `cannot move from ${formatRelease(from)} back to ${formatRelease(to)}: a downgrade is not supported` };
    case 'jump':
      return {
        ok: false,
        reason: 'UpgradePathInvalid',
        message: `cannot upgrade from ${formatRelease(from)} to ${formatRelease(to)}: upgrades go one release at a time (next after ${formatRelease(from)} is ${formatRelease(nextRelease(from))})`,
      };
  }
}

/** The one release an upgrade from r may go to. */
export function nextRelease(r: Release): Release {
  return r.n === 1 ? { year: r.year, n: 2 } : { year: r.year + 1, n: 1 };
}

export type LockstepVerdict =
  | { ok: true; imageRelease: string | null }
  | { ok: false; reason: 'ImageReleaseMismatch'; imageRelease: string; message: string };

/**
 * The lockstep check of "Database": a tag-pinned image must name spec.openStackRelease, or the phase Jobs would
 * run another release's nova-manage against a schema already at its own head, exit 0 as no-ops, and
 * installedRelease would be promoted to a release the pods do not run. A digest-pinned image or an unparseable
 * tag carries no comparable release and is left to the explicit declaration (ok, imageRelease null).
 */
export function lockstep(image: string, openStackRelease: string): LockstepVerdict {
  const named = imageRelease(image);
  if (!named) return { ok: true, imageRelease: null };
  const declared = parseRelease(openStackRelease);
  const imageRel = formatRelease(named);
  if (declared && ordinal(declared) === ordinal(named)) return { ok: true, imageRelease: imageRel };
  return {
    ok: false,
    reason: 'ImageReleaseMismatch',
    imageRelease: imageRel,
    message: `image ${image} is release ${imageRel} but spec.openStackRelease is "${openStackRelease}"; set both to the same release`,
  };
}
