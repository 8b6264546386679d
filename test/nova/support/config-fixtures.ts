/**
 * Fixtures of the Config and ComputeConfig tests: a Nova spec, the settings of a cloud, credentials whose values
 * the tests look for in every rendered byte (none may appear), and a reader of the INI Regent writes (oslo.config's
 * shape: `[section]`, `key = value`).
 */
import type { NovaSpec } from '../../../src/resources/nova.js';
import { podSettings, type NovaConfigSettings } from '../../../src/nova/config/settings.js';

export const NS = 'openstack';
export const NAME = 'nova';
export const UID = 'nova-uid-1';
export const REF = { namespace: NS, name: NAME, uid: UID };

export const CREDENTIALS = {
  apiPassword: 'api-Pw-7f3a91',
  cellPassword: 'cell-Pw-28cd04',
  serviceUser: 'svc-Pw-9b17e2',
  metadata: 'meta-Sh-4410ab',
  busPassword: 'bus-Pw-c0ffee',
  remoteBusPassword: 'rbus-Pw-d00d42',
} as const;

export const transportURL = (password: string = CREDENTIALS.busPassword, host = 'rabbit.openstack.svc:5672'): string => `rabbit://nova:${password}@${host}/nova`;

export const baseSpec = (edit: (spec: NovaSpec) => void = () => undefined): NovaSpec => {
  const spec: NovaSpec = {
    image: 'ghcr.io/c5c3/nova:2025.1',
    openStackRelease: '2025.1',
    database: {
      api: { clusterRef: { name: 'maria' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
      cell: { clusterRef: { name: 'maria' }, database: 'nova', secretRef: { name: 'nova-db' } },
    },
    messaging: { secretRef: { name: 'nova-bus', key: 'url' } },
    serviceUser: { secretRef: { name: 'nova-service-user' } },
    metadata: { sharedSecretRef: { name: 'nova-metadata' } },
  };
  edit(spec);
  return spec;
};

export const SETTINGS: NovaConfigSettings = podSettings({ keystoneURL: 'https://keystone.example:5000/v3', regionName: 'RegionOne' });

export type Ini = Record<string, Record<string, string>>;

/** The sections of an INI text; a key set twice in one section fails (Regent never writes one twice). */
export const readIni = (text: string): Ini => {
  const out: Ini = {};
  let section: string | undefined;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      if (out[section]) throw new Error(`section [${section}] written twice`);
      out[section] = {};
      continue;
    }
    const entry = /^([^=]+?) = (.*)$/.exec(line);
    if (!entry || section === undefined) throw new Error(`not an INI line: ${JSON.stringify(line)}`);
    if (entry[1]! in out[section]!) throw new Error(`[${section}] ${entry[1]} written twice`);
    out[section]![entry[1]!] = entry[2]!;
  }
  return out;
};
