import { condition, objectOf, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('Identity', { regionRef: { name: 'region-one' }, organizationID: 'acme', projectID: 'web', tags: { team: 'platform' } });
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const identityCases: AgreementCase[] = [
  { title: 'an identity in a region for an organization and project is valid', object: base, expect: 'valid' },
  { title: 'the region reference is required', object: s((x) => delete x.regionRef), expect: ['spec.regionRef'] },
  { title: 'a region reference needs a name', object: s((x) => (x.regionRef = {})), expect: ['spec.regionRef.name'] },
  { title: 'the organization ID is a DNS label', object: s((x) => (x.organizationID = 'Acme Corp')), expect: ['spec.organizationID'] },
  { title: 'the project ID is required', object: s((x) => delete x.projectID), expect: ['spec.projectID'] },
  { title: 'tag values are strings', object: s((x) => (x.tags = { team: 7 })), expect: ['spec.tags[team]'] },
  { title: 'at most 32 tags', object: s((x) => (x.tags = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])))), expect: ['spec.tags'] },
  { title: 'tags may change', object: s((x) => (x.tags = { team: 'other' })), old: base, expect: 'valid' },
  { title: 'the region is immutable', object: s((x) => (x.regionRef = { name: 'region-two' })), old: base, expect: ['spec.regionRef'] },
  { title: 'the organization is immutable', object: s((x) => (x.organizationID = 'other')), old: base, expect: ['spec.organizationID'] },
  { title: 'the project is immutable', object: s((x) => (x.projectID = 'other')), old: base, expect: ['spec.projectID'] },
  { title: 'a status with the OpenStack IDs is valid', object: { ...base, status: { openstack: { projectID: 'abc', userID: 'def' }, conditions: [condition('Available')] } }, expect: 'valid' },
];
