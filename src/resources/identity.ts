/**
 * Identity: the OpenStack project, user and application credential that scope one tenant's cloud
 * resources (openstack-provider.md, "identity scoping"). The region, organization and project it
 * belongs to are fixed at creation: moving them would re-parent cloud resources, which OpenStack
 * cannot do.
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, DnsLabel, Generation, LocalObjectReference, Phase } from './codec/common.js';
import { str } from './codec/primitives.js';
import { record, struct } from './codec/structure.js';
import { deepEqual, ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

export const Tags = record('Tags', str('TagValue', { maxLength: 255 }), { maxProperties: 32 });

export const IdentitySpec = struct('IdentitySpec', { regionRef: LocalObjectReference, organizationID: DnsLabel, projectID: DnsLabel }, { tags: Tags });
export type IdentitySpec = t.TypeOf<typeof IdentitySpec>;

const OpenStackID = str('OpenStackID', { minLength: 1, maxLength: 255 });

export const IdentityStatus = struct(
  'IdentityStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    /** What the provider created; the application-credential secret itself lives in a Secret. */
    openstack: struct('OpenStackIdentityStatus', {}, { projectID: OpenStackID, userID: OpenStackID, applicationCredentialID: OpenStackID, serverGroupID: OpenStackID }),
    credentialsSecretRef: LocalObjectReference,
  },
);
export type IdentityStatus = t.TypeOf<typeof IdentityStatus>;

const immutable = (key: 'regionRef' | 'organizationID' | 'projectID'): TransitionRule<IdentitySpec, IdentityStatus> => (self, old) =>
  deepEqual(self.spec[key], old.spec[key]) ? [] : [ruleError(`spec.${key}`, self.spec[key], `${key} is immutable`)];

export const IdentityKind = defineKind({
  kind: 'Identity',
  plural: 'identities',
  shortNames: ['ident'],
  spec: IdentitySpec,
  status: IdentityStatus,
  columns: standardColumns('Available'),
  transitions: [immutable('regionRef'), immutable('organizationID'), immutable('projectID')],
});
export type Identity = ResourceObject<'Identity', IdentitySpec, IdentityStatus>;
export const validateIdentity = IdentityKind.validate;
