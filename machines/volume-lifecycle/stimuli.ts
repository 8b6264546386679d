/**
 * The stimuli the volume-lifecycle machine accepts, as stored in its stream (machines/volume-lifecycle.ts): a
 * `reconcile` pass (reconciler only — no monitor stimulus exists: observation is stimulus, never authorization)
 * with its fresh exact-name lookup, the identity's realization and the desired volume; `specRejected`; and
 * Cinder's answers to the three effects (source `effect`).
 */
import * as t from 'io-ts';

/** A fresh exact-name lookup (`volume-{uid}`, post-filtered) in the identity's project. */
export const VolumeLookup = t.union([
  t.type({ kind: t.literal('absent') }),
  t.type({
    kind: t.literal('present'),
    id: t.string,
    /** Cinder's status, verbatim. */
    status: t.string,
    /** GiB. */
    size: t.number,
    /** The servers the volume is attached to (from Cinder's attachment rows), named as status should name them. */
    attachments: t.array(t.string),
  }),
  /** V3: more than one volume is named exactly `volume-{uid}`. */
  t.type({ kind: t.literal('duplicate'), ids: t.array(t.string) }),
]);
export type VolumeLookup = t.TypeOf<typeof VolumeLookup>;

/** V11: the identity's realization: without a project there is nowhere a volume could be. */
export const IdentityScope = t.union([t.type({ kind: t.literal('unrealized') }), t.type({ kind: t.literal('realized'), projectId: t.string })]);
export type IdentityScope = t.TypeOf<typeof IdentityScope>;

export const VolumeDesired = t.intersection([
  t.type({
    /** spec.size, GiB. */
    size: t.number,
    /** spec.volumeClassID: the Cinder volume type. */
    volumeClassID: t.string,
    /** Regent's ids the linkage metadata names (V9). */
    linkage: t.type({ identityID: t.string, organizationID: t.string, projectID: t.string, regionID: t.string, networkID: t.string }),
  }),
  t.partial({ tags: t.record(t.string, t.string) }),
]);
export type VolumeDesired = t.TypeOf<typeof VolumeDesired>;

const refusal = { status: t.number, reason: t.string };

export const VolumeStimulus = t.union([
  t.intersection([
    t.type({
      type: t.literal('reconcile'),
      source: t.literal('reconciler'),
      generation: t.number,
      deletionRequested: t.boolean,
      /** The pass's clock (RFC 3339). */
      at: t.string,
      identity: IdentityScope,
      desired: VolumeDesired,
      /** V4: the VolumeClass ids the Region exports now. */
      exportedClasses: t.array(t.string),
    }),
    /** Omitted when the identity has no project (nowhere to look) or the lookup could not be made. */
    t.partial({ observed: VolumeLookup }),
  ]),
  /** The Volume's spec does not decode: recorded, nothing else happens. */
  t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
  t.type({ type: t.literal('createAccepted'), source: t.literal('effect'), id: t.string }),
  t.type({ type: t.literal('createRejected'), source: t.literal('effect'), ...refusal }),
  /** The answer never came (timeout, reset, 5xx): not a refusal (V6). A handler may also just throw. */
  t.type({ type: t.literal('createOutcomeUnknown'), source: t.literal('effect'), reason: t.string }),
  t.type({ type: t.literal('extendAccepted'), source: t.literal('effect'), volumeId: t.string, size: t.number }),
  t.type({ type: t.literal('extendRejected'), source: t.literal('effect'), volumeId: t.string, size: t.number, ...refusal }),
  t.type({ type: t.literal('deleteAccepted'), source: t.literal('effect'), volumeId: t.string }),
  t.type({ type: t.literal('deleteRejected'), source: t.literal('effect'), volumeId: t.string, ...refusal }),
]);
export type VolumeStimulus = t.TypeOf<typeof VolumeStimulus>;
export type Reconcile = Extract<VolumeStimulus, { type: 'reconcile' }>;
export type Present = Extract<VolumeLookup, { kind: 'present' }>;
