/**
 * Release grammar and path rules (machines/nova/release.ts) — nova-operator.md, "Database" (lockstep of the image tag
 * with spec.openStackRelease) and "Release upgrade" (the path gate). Table tests state each rule; the properties
 * check the grammar against an independent definition of "the next release".
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { classifyPath, formatRelease, imageRelease, lockstep, parseRelease, validateUpgradePath, type Release } from '../../../machines/nova/release.js';

/** The next release, defined here without the module's ordinal: spring → autumn of the same year, autumn → next spring. */
const next = (r: Release): Release => (r.n === 1 ? { year: r.year, n: 2 } : { year: r.year + 1, n: 1 });
const sameRelease = (a: Release, b: Release): boolean => a.year === b.year && a.n === b.n;
/** Strictly earlier, by year then half. */
const earlier = (a: Release, b: Release): boolean => a.year < b.year || (a.year === b.year && a.n < b.n);

const release = fc.record({ year: fc.integer({ min: 1000, max: 9998 }), n: fc.constantFrom(1 as const, 2 as const) });
const suffix = fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/);
const repository = fc.constantFrom('nova', 'ghcr.io/c5c3/nova', 'registry:5000/nova', 'registry.local:443/team/nova-api', 'localhost:5000/a/b/c');
const digest = fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`);

describe('release grammar', () => {
  describe('parseRelease', () => {
    const table: [string, Release | null][] = [
      ['2026.1', { year: 2026, n: 1 }],
      ['2025.2', { year: 2025, n: 2 }],
      ['2026.3', null],
      ['2026.0', null],
      ['2026.10', null],
      ['2026.1-p1', null],
      ['2026.1.1', null],
      [' 2026.1', null],
      ['2026.1\n', null],
      ['v2026.1', null],
      ['0999.1', null],
      ['26.1', null],
      ['', null],
      ['zed', null],
    ];
    for (const [s, want] of table) {
      it(`${JSON.stringify(s)} parses as ${want ? formatRelease(want) : 'nothing'}`, () => {
        expect(parseRelease(s)).to.deep.equal(want);
      });
    }
    it('parse and format round-trip over the whole grammar', () => {
      fc.assert(fc.property(release, (r) => {
        expect(parseRelease(formatRelease(r))).to.deep.equal(r);
      }));
    });
    it('a string that parses formats back to itself', () => {
      fc.assert(fc.property(fc.string({ maxLength: 8 }), (s) => {
        const r = parseRelease(s);
        if (r) expect(formatRelease(r)).to.equal(s);
      }));
    });
  });

  describe('imageRelease', () => {
    const table: [string, string | null, string][] = [
      ['ghcr.io/c5c3/nova:2026.1', '2026.1', 'a release tag names that release'],
      ['ghcr.io/c5c3/nova:2026.1-p1', '2026.1', 'a patch suffix still names the release'],
      ['registry:5000/nova:2026.2', '2026.2', 'a registry port is not the tag'],
      ['registry:5000/nova', null, 'a registry port on an untagged image is not a tag'],
      ['registry:2026.1/nova', null, 'a port that looks like a release is not a tag'],
      ['ghcr.io/c5c3/nova', null, 'an untagged image carries no release'],
      ['ghcr.io/c5c3/nova:latest', null, 'a tag that is not a release carries none'],
      ['ghcr.io/c5c3/nova:2026.1.3', null, 'a longer version is not read as a shorter release'],
      ['ghcr.io/c5c3/nova:2026.10', null, 'a two-digit half is not 2026.1'],
      ['ghcr.io/c5c3/nova:2026.1-', null, 'an empty suffix is not a suffix'],
      ['ghcr.io/c5c3/nova@sha256:' + 'a'.repeat(64), null, 'a digest-pinned image carries no comparable release'],
      ['ghcr.io/c5c3/nova:2026.1@sha256:' + 'a'.repeat(64), null, 'a digest wins over the tag it is written with'],
    ];
    for (const [image, want, rule] of table) {
      it(`${rule} (${image.length > 60 ? image.slice(0, 60) + '…' : image})`, () => {
        const got = imageRelease(image);
        expect(got ? formatRelease(got) : null).to.equal(want);
      });
    }
    it('any tag R or R-<suffix> names R, whatever the repository', () => {
      fc.assert(fc.property(repository, release, fc.option(suffix, { nil: undefined }), (repo, r, sfx) => {
        const tag = sfx === undefined ? formatRelease(r) : `${formatRelease(r)}-${sfx}`;
        expect(imageRelease(`${repo}:${tag}`)).to.deep.equal(r);
      }));
    });
    it('any digest-pinned image yields no release, tagged or not', () => {
      fc.assert(fc.property(repository, fc.option(release, { nil: undefined }), digest, (repo, r, d) => {
        const ref = r === undefined ? `${repo}@${d}` : `${repo}:${formatRelease(r)}@${d}`;
        expect(imageRelease(ref)).to.equal(null);
      }));
    });
  });

  describe('classifyPath', () => {
    const table: [string, string, string][] = [
      ['2026.1', '2026.2', 'sequential'],
      ['2025.2', '2026.1', 'sequential'],
      ['2026.1', '2026.1', 'patch'],
      ['2026.2', '2026.1', 'downgrade'],
      ['2026.1', '2025.2', 'downgrade'],
      ['2026.1', '2027.1', 'jump'],
      ['2025.1', '2026.1', 'jump'],
      ['2026.1', '2027.2', 'jump'],
    ];
    for (const [a, b, kind] of table) {
      it(`${a} → ${b} is ${kind}`, () => {
        expect(classifyPath(parseRelease(a)!, parseRelease(b)!)).to.equal(kind);
      });
    }
    it('sequential is exactly "next(installed) is the target"', () => {
      fc.assert(fc.property(release, release, (a, b) => {
        expect(classifyPath(a, b) === 'sequential').to.equal(sameRelease(next(a), b));
      }));
      fc.assert(fc.property(release, (a) => {
        expect(classifyPath(a, next(a))).to.equal('sequential');
      }));
    });
    it('is total: every pair is exactly one of the four kinds, matching the order of releases', () => {
      fc.assert(fc.property(release, release, (a, b) => {
        const kind = classifyPath(a, b);
        expect(['sequential', 'patch', 'downgrade', 'jump']).to.include(kind);
        if (sameRelease(a, b)) expect(kind).to.equal('patch');
        else if (earlier(b, a)) expect(kind).to.equal('downgrade');
        else expect(kind).to.be.oneOf(['sequential', 'jump']);
      }));
    });
    it('downgrade is antisymmetric: a → b is a downgrade exactly when b → a is a forward move', () => {
      fc.assert(fc.property(release, release, (a, b) => {
        const forward = ['sequential', 'jump'].includes(classifyPath(b, a));
        expect(classifyPath(a, b) === 'downgrade').to.equal(forward);
        if (classifyPath(a, b) === 'downgrade') expect(classifyPath(b, a)).to.not.equal('downgrade');
      }));
    });
  });

  describe('validateUpgradePath', () => {
    it('one step forward is accepted as sequential', () => {
      expect(validateUpgradePath('2025.2', '2026.1')).to.deep.equal({ ok: true, kind: 'sequential' });
    });
    it('the same release is accepted as a patch', () => {
      expect(validateUpgradePath('2026.1', '2026.1')).to.deep.equal({ ok: true, kind: 'patch' });
    });
    it('an unparseable installed or target release is a VersionParseError naming both', () => {
      for (const [a, b] of [['zed', '2026.1'], ['2026.1', '2026.1-p1'], ['', '']]) {
        const v = validateUpgradePath(a!, b!);
        expect(v).to.deep.include({ ok: false, reason: 'VersionParseError' });
        if (!v.ok) expect(v.message).to.include(`"${a}"`).and.include(`"${b}"`);
      }
    });
    it('a parse failure wins over a downgrade', () => {
      // "2027.1" → "2026.x" would be a downgrade; the unparseable target is reported first.
      expect(validateUpgradePath('2027.1', '2026.3')).to.deep.include({ ok: false, reason: 'VersionParseError' });
    });
    it('an earlier target is DowngradeNotSupported naming both, even when it is several releases back', () => {
      for (const [a, b] of [['2026.2', '2026.1'], ['2027.1', '2024.1']]) {
        const v = validateUpgradePath(a!, b!);
        expect(v).to.deep.include({ ok: false, reason: 'DowngradeNotSupported' });
        if (!v.ok) expect(v.message).to.include(a).and.include(b);
      }
    });
    it('a later target that skips a release is UpgradePathInvalid naming both', () => {
      const v = validateUpgradePath('2025.1', '2026.1');
      expect(v).to.deep.include({ ok: false, reason: 'UpgradePathInvalid' });
      if (!v.ok) expect(v.message).to.include('2025.1').and.include('2026.1');
    });
    it('accepts exactly the sequential and patch pairs of the grammar', () => {
      fc.assert(fc.property(release, release, (a, b) => {
        const v = validateUpgradePath(formatRelease(a), formatRelease(b));
        expect(v.ok).to.equal(sameRelease(a, b) || sameRelease(next(a), b));
        if (!v.ok) expect(v.reason).to.equal(earlier(b, a) ? 'DowngradeNotSupported' : 'UpgradePathInvalid');
      }));
    });
  });

  describe('lockstep', () => {
    it('a tag naming spec.openStackRelease is in lockstep and reports the release', () => {
      expect(lockstep('ghcr.io/c5c3/nova:2026.1', '2026.1')).to.deep.equal({ ok: true, imageRelease: '2026.1' });
    });
    it('a patch-suffixed tag of the declared release is in lockstep', () => {
      expect(lockstep('registry:5000/nova:2026.1-p1', '2026.1')).to.deep.equal({ ok: true, imageRelease: '2026.1' });
    });
    it('a tag naming another release is ImageReleaseMismatch, naming both', () => {
      const v = lockstep('ghcr.io/c5c3/nova:2026.2', '2026.1');
      expect(v).to.deep.include({ ok: false, reason: 'ImageReleaseMismatch', imageRelease: '2026.2' });
      if (!v.ok) expect(v.message).to.include('2026.2').and.include('2026.1');
    });
    it('a tag naming a release while spec.openStackRelease does not parse is a mismatch, not a pass', () => {
      expect(lockstep('ghcr.io/c5c3/nova:2026.1', 'zed')).to.deep.include({ ok: false, reason: 'ImageReleaseMismatch' });
    });
    it('a digest-pinned image is left to the declaration (ok, no release)', () => {
      expect(lockstep('ghcr.io/c5c3/nova:2026.2@sha256:' + 'b'.repeat(64), '2026.1')).to.deep.equal({ ok: true, imageRelease: null });
    });
    it('an unparseable tag is left to the declaration (ok, no release)', () => {
      expect(lockstep('ghcr.io/c5c3/nova:latest', '2026.1')).to.deep.equal({ ok: true, imageRelease: null });
    });
    it('a tagged image is in lockstep exactly when its tag names the declared release', () => {
      fc.assert(fc.property(repository, release, release, fc.option(suffix, { nil: undefined }), (repo, tagged, declared, sfx) => {
        const tag = sfx === undefined ? formatRelease(tagged) : `${formatRelease(tagged)}-${sfx}`;
        expect(lockstep(`${repo}:${tag}`, formatRelease(declared)).ok).to.equal(sameRelease(tagged, declared));
      }));
    });
  });
});
