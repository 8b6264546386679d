/**
 * Building blocks every kind shares: Kubernetes names, references, and metav1.Condition. Patterns are
 * the API server's own (apimachinery validation), written once here and once in each CRD.
 */
import type * as t from 'io-ts';
import { enumOf, int, str } from './primitives.js';
import { list, struct } from './structure.js';

export const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
export const CONDITION_TYPE = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';
export const CONDITION_REASON = '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$';

/** A Kubernetes object name (DNS-1123 subdomain). */
export const ObjectName = str('ObjectName', { minLength: 1, maxLength: 253, pattern: DNS1123_SUBDOMAIN });
/** A DNS-1123 label: hostnames, listener names, gate names. */
export const DnsLabel = str('DnsLabel', { minLength: 1, maxLength: 63, pattern: DNS1123_LABEL });
export const Uuid = str('Uuid', { format: 'uuid', maxLength: 36 });
export const DateTime = str('DateTime', { format: 'date-time', maxLength: 64 });
export const Ipv4 = str('Ipv4', { format: 'ipv4', maxLength: 15 });
export const Cidr = str('Cidr', { format: 'cidr', maxLength: 43 });
/** A free-form display string an operator or OpenStack chose (image names, region names). */
export const DisplayName = str('DisplayName', { minLength: 1, maxLength: 255 });
export const Phase = str('Phase', { maxLength: 64 });
export const Generation = int('Generation', { minimum: 0 });
/** The resource's audit page (issue 18), written by the status runner when Regent knows its audit base URL. */
export const AuditURL = str('AuditURL', { maxLength: 2048, pattern: '^https?://[^\\s]+$' });

/** A reference to an object of a known kind in the same namespace. */
export const LocalObjectReference = struct('LocalObjectReference', { name: ObjectName }, {});
export type LocalObjectReference = t.TypeOf<typeof LocalObjectReference>;

/** A reference to a Secret, optionally to one key in it. */
export const SecretKeyReference = struct('SecretKeyReference', { name: ObjectName }, { key: str('SecretKey', { minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$' }) });
export type SecretKeyReference = t.TypeOf<typeof SecretKeyReference>;

export const ConditionStatus = enumOf('ConditionStatus', ['True', 'False', 'Unknown']);
export type ConditionStatus = t.TypeOf<typeof ConditionStatus>;

/** metav1.Condition, field for field. */
export const Condition = struct(
  'Condition',
  {
    type: str('ConditionType', { maxLength: 316, pattern: CONDITION_TYPE }),
    status: ConditionStatus,
    lastTransitionTime: DateTime,
    reason: str('ConditionReason', { minLength: 1, maxLength: 1024, pattern: CONDITION_REASON }),
    message: str('ConditionMessage', { maxLength: 32768 }),
  },
  { observedGeneration: Generation },
);
export type Condition = t.TypeOf<typeof Condition>;

export const Conditions = list('Conditions', Condition, { maxItems: 32, listType: 'map', mapKeys: ['type'] });
