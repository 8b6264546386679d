/** Provider errors: conditions of the cloud that Regent must not paper over. */

/** A resource with Regent's deterministic name exists but belongs to someone else: never adopt it. */
export class ForeignResource extends Error {
  override readonly name = 'ForeignResource';
  readonly reason = 'foreign-resource' as const;
}

/** A referenced Regent resource is not ready yet (e.g. the Server's Network has no Neutron network). */
export class DependencyNotReady extends Error {
  override readonly name = 'DependencyNotReady';
  readonly reason = 'dependency-not-ready' as const;
}
