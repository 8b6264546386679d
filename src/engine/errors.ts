/** Typed engine errors. Each says what the caller should do, not just what went wrong. */

/** Reload-and-redecide lost the race `attempts` times in a row: requeue the pass with backoff. */
export class ConcurrencyExhausted extends Error {
  override readonly name = 'ConcurrencyExhausted';
  constructor(
    readonly stream: string,
    readonly attempts: number,
  ) {
    super(`stream ${stream}: still losing the append race after ${attempts} attempts`);
  }
}

/** The stimulus does not decode with the machine's codec: a programming or input error, not retried. */
export class InvalidStimulus extends Error {
  override readonly name = 'InvalidStimulus';
  constructor(
    readonly stream: string,
    readonly problems: readonly string[],
  ) {
    super(`stream ${stream}: invalid stimulus: ${problems.join('; ')}`);
  }
}

/**
 * A stored event cannot be read with the current codecs and upcasters. The stream is quarantined: no
 * new decision is taken on it until an operator fixes the cause (`regent migrate verify` lists it).
 */
export class QuarantinedEvent extends Error {
  override readonly name = 'QuarantinedEvent';
  constructor(
    readonly stream: string,
    readonly revision: number,
    readonly eventId: string,
    readonly problem: string,
  ) {
    super(`stream ${stream} revision ${revision} (event ${eventId}) cannot be read: ${problem}`);
  }
}

/** An effect was decided but nothing can execute it. The decision is durable; the next pass re-decides. */
export class NoEffectHandler extends Error {
  override readonly name = 'NoEffectHandler';
  constructor(readonly effectType: string) {
    super(`no handler registered for effect ${effectType}`);
  }
}

/**
 * This process does not hold an unexpired leadership lease: it must not append a decision or start an
 * effect (a deposed leader that resumed after a pause would otherwise act beside its successor).
 */
export class NotLeader extends Error {
  override readonly name = 'NotLeader';
  constructor(
    readonly stream: string,
    readonly step: 'append' | 'effect',
  ) {
    super(`stream ${stream}: not leading; the ${step === 'append' ? 'decision is not appended' : 'effect is not started'} (a pass cut off by the loss of leadership)`);
  }
}

/** Effect results fed back into effects more than `limit` times in one dispatch: a machine loop. */
export class EffectChainTooLong extends Error {
  override readonly name = 'EffectChainTooLong';
  constructor(
    readonly stream: string,
    readonly limit: number,
  ) {
    super(`stream ${stream}: more than ${limit} effect results in one dispatch; the machine loops`);
  }
}
