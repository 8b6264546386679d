import { condition, objectOf, variant, type AgreementCase, type Json } from './case.js';

const db = (database: string): Json => ({ clusterRef: { name: 'mariadb' }, database, secretRef: { name: `${database.replace(/[^a-z0-9]/gi, '-').toLowerCase()}-db` } });
const base = objectOf('Nova', {
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: { api: db('nova_api'), cell: db('nova') },
  messaging: { clusterRef: { name: 'rabbitmq' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  metadata: { sharedSecretRef: { name: 'nova-metadata' } },
  consoleProxy: { enabled: true },
  dbArchive: { schedule: '0 3 * * *', retentionDays: 90 },
  extraConfig: { DEFAULT: { debug: 'false' } },
});
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const novaCases: AgreementCase[] = [
  { title: 'a Nova with databases, messaging and a service user is valid', object: base, expect: 'valid' },
  { title: 'the release looks like 2025.1', object: s((x) => (x.openStackRelease = 'dalmatian')), expect: ['spec.openStackRelease'] },
  { title: 'a schema name cannot carry a quote', object: s((x) => ((x.database as Json).api = db("nova'api"))), expect: ['spec.database.api.database'] },
  { title: 'a schema name is at most 64 characters', object: s((x) => ((x.database as Json).cell = db('n'.repeat(65)))), expect: ['spec.database.cell.database'] },
  { title: 'the cell schema is at most 58 characters, so its cell0 schema fits 64', object: s((x) => ((x.database as Json).cell = db('n'.repeat(59)))), expect: ['spec.database.cell.database'] },
  { title: 'a 58-character cell schema is valid', object: s((x) => ((x.database as Json).cell = db('n'.repeat(58)))), expect: 'valid' },
  { title: 'the api schema may use all 64 characters', object: s((x) => ((x.database as Json).api = db('a'.repeat(64)))), expect: 'valid' },
  { title: 'both database blocks are required', object: s((x) => delete (x.database as Json).cell), expect: ['spec.database.cell'] },
  { title: 'messaging is brownfield or managed, not both', object: s((x) => (x.messaging = { clusterRef: { name: 'r' }, secretRef: { name: 's' } })), expect: ['spec.messaging'] },
  { title: 'messaging needs one of the two', object: s((x) => (x.messaging = {})), expect: ['spec.messaging'] },
  { title: 'database TLS needs a CA bundle', object: s((x) => ((x.database as Json).api = { ...db('nova_api'), tls: { enabled: true } })), expect: ['spec.database.api.tls.caSecretRef'] },
  { title: 'an enabled network policy needs an ingress namespace', object: s((x) => (x.networkPolicy = { enabled: true })), expect: ['spec.networkPolicy.ingressNamespaces'] },
  { title: 'an enabled network policy with ingress is valid', object: s((x) => (x.networkPolicy = { enabled: true, ingressNamespaces: ['gateway'] })), expect: 'valid' },
  { title: 'autoscaling max is at least min', object: s((x) => (x.autoscaling = { minReplicas: 3, maxReplicas: 2 })), expect: ['spec.autoscaling.maxReplicas'] },
  { title: 'the secret store kind is a closed set', object: s((x) => (x.secretStoreRef = { name: 'openbao', kind: 'Vault' })), expect: ['spec.secretStoreRef.kind'] },
  { title: 'extraConfig values are strings', object: s((x) => (x.extraConfig = { DEFAULT: { debug: true } })), expect: ['spec.extraConfig[DEFAULT][debug]'] },
  { title: 'a gateway hostname is a DNS name', object: s((x) => (x.gateway = { parentRef: { name: 'gw' }, hostname: 'Nova API' })), expect: ['spec.gateway.hostname'] },
  { title: 'archive retention is at least a day', object: s((x) => (x.dbArchive = { retentionDays: 0 })), expect: ['spec.dbArchive.retentionDays'] },
  { title: 'the image may change with the release', object: s((x) => ((x.image = 'ghcr.io/c5c3/nova:2025.2'), (x.openStackRelease = '2025.2'))), old: base, expect: 'valid' },
  { title: 'a schema name is immutable', object: s((x) => ((x.database as Json).cell = db('nova_cell1'))), old: base, expect: ['spec.database.cell.database'] },
  {
    title: 'a status with cells and an upgrade phase is valid',
    object: { ...base, status: { installedRelease: '2025.1', upgradePhase: 'Migrating', cells: [{ name: 'cell1', uuid: '3f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e10' }], conditions: [condition('Ready', 'False', 'NotAllReady')] } },
    expect: 'valid',
  },
  { title: 'the upgrade phase is one of the four', object: { ...base, status: { upgradePhase: 'Done' } }, expect: ['status.upgradePhase'] },
  { title: 'cells are unique by name', object: { ...base, status: { cells: [{ name: 'cell1', uuid: '3f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e10' }, { name: 'cell1', uuid: '3f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e11' }] } }, expect: ['status.cells[1]'] },
];
