/** Provider errors: conditions of the cloud that Regent must not paper over. */
import type { UnresolvableReason } from '../../machines/lifecycle.js';

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

/**
 * The spec decodes but names something the cloud does not have exactly once (an image or flavor name
 * that matches nothing, or two): the pass records it (lifecycle L9) instead of failing with backoff, so
 * the cause reaches status. `message` is user-safe (names and ids the project can see).
 */
export class DesiredUnresolvable extends Error {
  override readonly name = 'DesiredUnresolvable';
  constructor(
    readonly reason: UnresolvableReason,
    message: string,
  ) {
    super(message);
  }
}
