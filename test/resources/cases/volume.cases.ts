import { condition, IMAGE_ID, objectOf, OTHER_IMAGE_ID, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('Volume', { networkID: 'net-a', size: 10, volumeClassID: IMAGE_ID });
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const volumeCases: AgreementCase[] = [
  { title: 'a 10 GiB volume of a class on a network is valid', object: base, expect: 'valid' },
  { title: 'size is at least 1 GiB', object: s((x) => (x.size = 0)), expect: ['spec.size'] },
  { title: 'size is whole GiB', object: s((x) => (x.size = 1.5)), expect: ['spec.size'] },
  { title: 'size is at most 65536 GiB', object: s((x) => (x.size = 65537)), expect: ['spec.size'] },
  { title: 'the volume class ID is a UUID', object: s((x) => (x.volumeClassID = 'fast')), expect: ['spec.volumeClassID'] },
  { title: 'the network is required', object: s((x) => delete x.networkID), expect: ['spec.networkID'] },
  { title: 'size given as a string is a type error', object: s((x) => (x.size = '10')), expect: ['spec.size'] },
  { title: 'a volume may grow', object: s((x) => (x.size = 20)), old: base, expect: 'valid' },
  { title: 'a volume never shrinks', object: s((x) => (x.size = 5)), old: base, expect: ['spec.size'] },
  { title: 'the network is immutable', object: s((x) => (x.networkID = 'net-b')), old: base, expect: ['spec.networkID'] },
  { title: 'the volume class is immutable', object: s((x) => (x.volumeClassID = OTHER_IMAGE_ID)), old: base, expect: ['spec.volumeClassID'] },
  { title: 'tags are immutable: written to the Cinder metadata at create, a later change would never be applied', object: s((x) => (x.tags = { team: 'b' })), old: s((x) => (x.tags = { team: 'a' })), expect: ['spec.tags'] },
  { title: 'tags cannot be added to an existing volume', object: s((x) => (x.tags = { team: 'a' })), old: base, expect: ['spec.tags'] },
  { title: 'unchanged tags are valid', object: s((x) => (x.tags = { team: 'a' })), old: s((x) => (x.tags = { team: 'a' })), expect: 'valid' },
  { title: 'a status with the Cinder ID and state is valid', object: { ...base, status: { volumeID: IMAGE_ID, size: 10, state: 'available', conditions: [condition('Available')] } }, expect: 'valid' },
];
