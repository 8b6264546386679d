/**
 * Volume: a Cinder volume in the Network's Identity project, found again by the stable name
 * `volume-{uid}` (openstack-provider.md). Size is whole GiB and may grow (Cinder extend) but never
 * shrink; the network and the volume class (the Cinder volume type) are fixed at creation.
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, Generation, ObjectName, Phase, Uuid } from './codec/common.js';
import { int, str } from './codec/primitives.js';
import { struct } from './codec/structure.js';
import { canonicalJson, ruleError } from './codec/transitions.js';
import { Tags } from './identity.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

export const VolumeSpec = struct(
  'VolumeSpec',
  { networkID: ObjectName, size: int('SizeGiB', { minimum: 1, maximum: 65536 }), volumeClassID: Uuid },
  { tags: Tags },
);
export type VolumeSpec = t.TypeOf<typeof VolumeSpec>;

export const VolumeStatus = struct(
  'VolumeStatus',
  {},
  { observedGeneration: Generation, auditURL: AuditURL, phase: Phase, conditions: Conditions, volumeID: Uuid, size: int('SizeGiB', { minimum: 0 }), state: str('CinderStatus', { maxLength: 64 }), volumeClassID: Uuid },
);
export type VolumeStatus = t.TypeOf<typeof VolumeStatus>;

const transitions: TransitionRule<VolumeSpec, VolumeStatus>[] = [
  (self, old) => (self.spec.networkID === old.spec.networkID ? [] : [ruleError('spec.networkID', self.spec.networkID, 'networkID is immutable')]),
  (self, old) => (self.spec.volumeClassID === old.spec.volumeClassID ? [] : [ruleError('spec.volumeClassID', self.spec.volumeClassID, 'volumeClassID is immutable')]),
  (self, old) => (self.spec.size >= old.spec.size ? [] : [ruleError('spec.size', self.spec.size, 'size may grow but never shrink')]),
  // Regent writes tags to the Cinder metadata once, at create: a later change would be accepted and never applied
  (self, old) => (canonicalJson(self.spec.tags ?? null) === canonicalJson(old.spec.tags ?? null) ? [] : [ruleError('spec.tags', self.spec, 'tags are immutable (written to the Cinder metadata at create)')]),
];

export const VolumeKind = defineKind({ kind: 'Volume', plural: 'volumes', shortNames: ['vol'], spec: VolumeSpec, status: VolumeStatus, columns: standardColumns('Available'), transitions });
export type Volume = ResourceObject<'Volume', VolumeSpec, VolumeStatus>;
export const validateVolume = VolumeKind.validate;
