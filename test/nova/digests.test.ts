/**
 * Rotation digests (src/nova/digests.ts; nova-operator.md, "Rotation and deletion"): SHA-256 of the value, stamped
 * only while the value is non-empty, and merged over a template's annotations so a digest not stamped in this pass
 * keeps the annotation it has (a pass stopped at a gate rolls nothing).
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { digestOf, mergeDigestAnnotations, stampDigest } from '../../src/nova/digests.js';

const A = 'nova.c5c3.io/authtoken-hash';
const T = 'nova.c5c3.io/transport-url-hash';

describe('nova rotation digests', () => {
  it('a digest is the hex SHA-256 of the value, and does not contain it', () => {
    expect(digestOf('s3cret')).to.equal(createHash('sha256').update('s3cret').digest('hex'));
    expect(digestOf('s3cret')).to.match(/^[0-9a-f]{64}$/).and.not.include('s3cret');
  });

  it('an empty or absent value has no digest', () => {
    expect(digestOf('')).to.equal(undefined);
    expect(digestOf(undefined)).to.equal(undefined);
  });

  it('stamping an empty value leaves the digest recorded so far as it is', () => {
    const digests: Record<string, string> = { [A]: 'before' };
    expect(stampDigest(digests, A, '')).to.equal(undefined);
    expect(stampDigest(digests, A, undefined)).to.equal(undefined);
    expect(digests).to.deep.equal({ [A]: 'before' });
    stampDigest(digests, A, 'new');
    expect(digests[A]).to.equal(digestOf('new'));
  });

  it('a changed credential changes exactly its own annotation among those a workload carries', () => {
    const current = { [A]: digestOf('old-password')!, [T]: digestOf('rabbit://x')!, other: 'kept' };
    const merged = mergeDigestAnnotations(current, { [A]: digestOf('new-password')!, [T]: digestOf('rabbit://x')! }, [A, T]);
    expect(merged).to.deep.equal({ [A]: digestOf('new-password'), [T]: current[T], other: 'kept' });
  });

  it('a digest not stamped in this pass (its gate stopped the pass) keeps the template\'s annotation: nothing rolls', () => {
    const current = { [A]: 'a-digest', [T]: 't-digest' };
    expect(mergeDigestAnnotations(current, {}, [A, T])).to.deep.equal(current);
  });

  it('a workload carries only the digests it names', () => {
    expect(mergeDigestAnnotations({}, { [A]: 'a', [T]: 't' }, [T])).to.deep.equal({ [T]: 't' });
  });
});
