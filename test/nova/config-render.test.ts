/**
 * The Config step's renderer (src/nova/config/render.ts): what nova.conf and the role overlays say, spec.extraConfig
 * merged over them, the keys of Regent's it overrides (ExtraConfigHealthy), the refusal of anything oslo.config would
 * read as another line, deterministic bytes and the content-addressed name; and the part-1 Jobs mounting it.
 */
import { expect } from 'chai';
import type { NovaSpec } from '../../src/resources/nova.js';
import { configHash, ownedKeysOverridden, renderNovaConfig, type RenderedConfig } from '../../src/nova/config/render.js';
import { podSettings, type NovaConfigSettings } from '../../src/nova/config/settings.js';
import { renderArchiveCronJob, renderNovaJob } from '../../src/nova/jobs/render.js';
import { NAME, REF, SETTINGS, baseSpec, readIni, type Ini } from './support/config-fixtures.js';

const render = (spec: NovaSpec, settings: NovaConfigSettings = SETTINGS): RenderedConfig => {
  const result = renderNovaConfig({ name: NAME, spec, settings });
  if (!result.ok) throw new Error(`refused: ${result.problems.join('; ')}`);
  return result.config;
};
const ini = (spec: NovaSpec, file = 'nova.conf', settings: NovaConfigSettings = SETTINGS): Ini => readIni(render(spec, settings).files[file]!);
const withExtra = (extraConfig: NovaSpec['extraConfig']) => baseSpec((s) => (s.extraConfig = extraConfig));

describe('Nova config: the renderer', () => {
  describe('what is rendered', () => {
    it('the files: nova.conf, one overlay per role (named as the roles), api-paste.ini; no logging.ini (the spec has no logging field)', () => {
      expect(Object.keys(render(baseSpec()).files)).to.deep.equal(['api-paste.ini', 'nova-api.conf', 'nova-conductor.conf', 'nova-metadata.conf', 'nova-novncproxy.conf', 'nova-scheduler.conf', 'nova.conf']);
    });

    const cases: Array<[string, NovaSpec, (conf: Ini) => void]> = [
      ['both databases get the pool settings max_user_connections is sized by (5 + 10), and no connection', baseSpec(), (c) => {
        expect(c.api_database).to.deep.equal({ max_pool_size: '5', max_overflow: '10' });
        expect(c.database).to.deep.equal({ max_pool_size: '5', max_overflow: '10' });
      }],
      ['[DEFAULT] carries no transport_url: the bus URL is a credential, delivered as env', baseSpec(), (c) => expect(c.DEFAULT).to.deep.equal({ state_path: '/var/lib/nova' })],
      ['[keystone_authtoken] validates tokens as the service user, without its password', baseSpec(), (c) =>
        expect(c.keystone_authtoken).to.deep.equal({
          www_authenticate_uri: 'https://keystone.example:5000/v3',
          auth_type: 'password',
          auth_url: 'https://keystone.example:5000/v3',
          username: 'nova',
          user_domain_name: 'Default',
          project_name: 'service',
          project_domain_name: 'Default',
          region_name: 'RegionOne',
          interface: 'internal',
          service_token_roles_required: 'true',
        })],
      ['[placement] and [neutron] authenticate as the service user and use the internal interface', baseSpec(), (c) => {
        for (const section of ['placement', 'neutron']) expect(c[section], section).to.include({ auth_type: 'password', auth_url: 'https://keystone.example:5000/v3', username: 'nova', region_name: 'RegionOne', valid_interfaces: 'internal' }).and.not.have.property('password');
      }],
      ['[service_user] sends the service token', baseSpec(), (c) => expect(c.service_user).to.include({ send_service_user_token: 'true', auth_type: 'password', username: 'nova' }).and.not.have.property('password')],
      ['[glance] and [cinder] find their endpoints in the catalog', baseSpec(), (c) => {
        expect(c.glance).to.deep.equal({ region_name: 'RegionOne', valid_interfaces: 'internal' });
        expect(c.cinder).to.include({ catalog_info: 'volumev3::internalURL', os_region_name: 'RegionOne' });
      }],
      ['with a metadata shared secret, neutron proxies the metadata service (the secret itself: env)', baseSpec(), (c) => expect(c.neutron).to.include({ service_metadata_proxy: 'true' }).and.not.have.property('metadata_proxy_shared_secret')],
      ['without spec.metadata, no metadata proxy', baseSpec((s) => delete s.metadata), (c) => expect(c.neutron).to.not.have.property('service_metadata_proxy')],
      ['a plain bus: no [oslo_messaging_rabbit] at all', baseSpec(), (c) => expect(c).to.not.have.property('oslo_messaging_rabbit')],
      ['a TLS bus: ssl on, and the CA bundle where the pods mount it', baseSpec((s) => (s.messaging.tls = { enabled: true, caSecretRef: { name: 'bus-ca' } })), (c) =>
        expect(c.oslo_messaging_rabbit).to.deep.equal({ ssl: 'true', ssl_ca_file: '/etc/nova-messaging-tls/ca.crt' })],
      ['[oslo_concurrency] lock_path, [wsgi] the api-paste.ini beside nova.conf, [api] keystone auth', baseSpec(), (c) => {
        expect(c.oslo_concurrency).to.deep.equal({ lock_path: '/var/lib/nova/tmp' });
        expect(c.wsgi).to.deep.equal({ api_paste_config: 'api-paste.ini' });
        expect(c.api).to.deep.equal({ auth_strategy: 'keystone' });
      }],
      ['the console proxy off: [vnc] disabled, no public URL', baseSpec(), (c) => expect(c.vnc).to.deep.equal({ enabled: 'false' })],
      ['the console proxy on behind a gateway: [vnc] enabled with its public URL', baseSpec((s) => (s.consoleProxy = { enabled: true, gateway: { parentRef: { name: 'gw' }, hostname: 'vnc.example.org' } })), (c) =>
        expect(c.vnc).to.deep.equal({ enabled: 'true', novncproxy_base_url: 'https://vnc.example.org/vnc_lite.html' })],
    ];
    for (const [title, spec, check] of cases) it(title, () => check(ini(spec)));

    it('without a Keystone URL no auth_url nor www_authenticate_uri is rendered (spec.extraConfig may give them)', () => {
      const c = ini(baseSpec(), 'nova.conf', podSettings());
      for (const section of ['keystone_authtoken', 'placement', 'service_user', 'neutron', 'cinder']) expect(c[section], section).to.not.have.any.keys('auth_url', 'www_authenticate_uri');
    });

    const overlays: Array<[string, Ini]> = [
      ['nova-api.conf', { DEFAULT: { enabled_apis: 'osapi_compute', osapi_compute_listen: '0.0.0.0', osapi_compute_listen_port: '8774', osapi_compute_workers: '1' } }],
      ['nova-metadata.conf', { DEFAULT: { enabled_apis: 'metadata', metadata_listen: '0.0.0.0', metadata_listen_port: '8775', metadata_workers: '1' } }],
      ['nova-novncproxy.conf', { vnc: { novncproxy_host: '0.0.0.0', novncproxy_port: '6080' } }],
      ['nova-conductor.conf', { conductor: { workers: '1' } }],
      ['nova-scheduler.conf', { scheduler: { workers: '1' } }],
    ];
    for (const [file, expected] of overlays) it(`${file} says only what differs for its role (the API 8774, metadata 8775, the console proxy 6080)`, () => expect(ini(baseSpec(), file)).to.deep.equal(expected));

    it('the listen address and ports come from the settings (the local roles listen on loopback)', () => {
      const local = podSettings({ listenHost: '127.0.0.1', ports: { api: 18774, metadata: 18775, novncproxy: 16080 } });
      expect(ini(baseSpec(), 'nova-api.conf', local).DEFAULT).to.include({ osapi_compute_listen: '127.0.0.1', osapi_compute_listen_port: '18774' });
      expect(ini(baseSpec(), 'nova-metadata.conf', local).DEFAULT).to.include({ metadata_listen: '127.0.0.1', metadata_listen_port: '18775' });
    });
  });

  describe('spec.extraConfig merged over it', () => {
    const cases: Array<[string, NovaSpec['extraConfig'], string, (conf: Ini, text: string) => void]> = [
      ['a new key lands in its section after Regent\'s keys', { placement: { timeout: '30' } }, 'nova.conf', (c, text) => {
        expect(c.placement!.timeout).to.equal('30');
        expect(Object.keys(c.placement!).at(-1)).to.equal('timeout');
        expect(text).to.match(/\[placement\][^[]*timeout = 30\n/);
      }],
      ['a new section comes after Regent\'s, its keys sorted', { quota: { ram: '1024', cores: '8' } }, 'nova.conf', (c) => {
        expect(Object.keys(c).at(-1)).to.equal('quota');
        expect(Object.keys(c.quota!)).to.deep.equal(['cores', 'ram']);
      }],
      ['a key of Regent\'s takes the user\'s value in place, written once', { database: { max_pool_size: '20' } }, 'nova.conf', (c) => expect(c.database).to.deep.equal({ max_pool_size: '20', max_overflow: '10' })],
      ['[Database] is Regent\'s [database] (oslo.config reads group names case-insensitively)', { Database: { max_overflow: '30' } }, 'nova.conf', (c) => {
        expect(c.database).to.deep.equal({ max_pool_size: '5', max_overflow: '30' });
        expect(c).to.not.have.property('Database');
      }],
      ['[default] is not DEFAULT (oslo.config reads it as a group of its own)', { default: { debug: 'true' } }, 'nova.conf', (c) => {
        expect(c.DEFAULT).to.not.have.property('debug');
        expect(c.default).to.deep.equal({ debug: 'true' });
      }],
      ['an overlay key the user sets takes the user\'s value in the overlay too (read after nova.conf, it would undo it)', { DEFAULT: { osapi_compute_workers: '4' } }, 'nova-api.conf', (c) => expect(c.DEFAULT!.osapi_compute_workers).to.equal('4')],
      ['the user\'s keys do not enter an overlay that does not set them', { DEFAULT: { debug: 'true' } }, 'nova-api.conf', (c) => expect(c.DEFAULT).to.not.have.property('debug')],
    ];
    for (const [title, extra, file, check] of cases) {
      it(title, () => {
        const config = render(withExtra(extra));
        check(readIni(config.files[file]!), config.files[file]!);
      });
    }
  });

  describe('the keys of Regent\'s spec.extraConfig overrides (ExtraConfigHealthy)', () => {
    const cases: Array<[string, NovaSpec['extraConfig'], Array<{ section: string; key: string; envDelivered: boolean }>]> = [
      ['no extraConfig overrides nothing', undefined, []],
      ['a key Regent does not render is not an override', { DEFAULT: { debug: 'true' }, quota: { cores: '8' } }, []],
      ['a key Regent renders in nova.conf is', { placement: { auth_url: 'http://elsewhere/v3' } }, [{ section: 'placement', key: 'auth_url', envDelivered: false }]],
      ['a key of an overlay is', { DEFAULT: { osapi_compute_listen_port: '9999' } }, [{ section: 'DEFAULT', key: 'osapi_compute_listen_port', envDelivered: false }]],
      ['a credential Regent delivers as env is, and says its file value has no effect', { DEFAULT: { transport_url: 'rabbit://x' }, database: { connection: 'mysql://x' }, keystone_authtoken: { password: 'x' } }, [
        { section: 'DEFAULT', key: 'transport_url', envDelivered: true },
        { section: 'database', key: 'connection', envDelivered: true },
        { section: 'keystone_authtoken', key: 'password', envDelivered: true },
      ]],
      ['[Placement] is Regent\'s [placement]', { Placement: { username: 'other' } }, [{ section: 'Placement', key: 'username', envDelivered: false }]],
      ['auth-url is not auth_url (oslo.config reads keys exactly)', { placement: { 'auth-url': 'http://x' } }, []],
    ];
    for (const [title, extra, expected] of cases) it(title, () => expect(ownedKeysOverridden(withExtra(extra), SETTINGS)).to.deep.equal(expected));

    it('the overrides are reported with the rendered config', () => {
      const result = renderNovaConfig({ name: NAME, spec: withExtra({ placement: { auth_url: 'http://elsewhere/v3' } }), settings: SETTINGS });
      expect(result.ok && result.overridden).to.deep.equal([{ section: 'placement', key: 'auth_url', envDelivered: false }]);
    });
  });

  describe('what cannot be written is refused as a whole', () => {
    const cases: Array<[string, NovaSpec['extraConfig'], RegExp]> = [
      ['a newline in a value (it would start a line of its own: another key, another section)', { DEFAULT: { debug: 'false\n[database]\nconnection = sqlite://' } }, /^\[DEFAULT\] debug: the value carries a control character \(U\+000A\)$/],
      ['a carriage return in a value', { DEFAULT: { debug: 'false\r' } }, /\[DEFAULT\] debug: the value carries a control character \(U\+000D\)/],
      ['a tab in a value', { DEFAULT: { debug: 'a\tb' } }, /\(U\+0009\)/],
      ['DEL in a value', { DEFAULT: { debug: 'a\u007fb' } }, /\(U\+007F\)/],
      ['NEL (C1) in a value', { DEFAULT: { debug: 'a\u0085b' } }, /\(U\+0085\)/],
      ['a line separator in a value (Python splits lines on it)', { DEFAULT: { debug: 'a\u2028b' } }, /\(U\+2028\)/],
      ['a control character in a key', { DEFAULT: { 'de\nbug': 'x' } }, /^\[DEFAULT\] "de\\nbug": the key carries a control character \(U\+000A\)$/],
      ['a control character in a section name', { 'quota\n[database]': { cores: '1' } }, /^section \["quota\\n\[database\]"\]: its name carries a control character \(U\+000A\)$/],
      ['a control character in a value of a key Regent owns (the value goes to an overlay too: named once)', { DEFAULT: { osapi_compute_workers: '4\n' } }, /^\[DEFAULT\] osapi_compute_workers: the value carries a control character \(U\+000A\)$/],
      ['an empty key', { DEFAULT: { '': 'x' } }, /section \[DEFAULT\] has a key with an empty name/],
      ['a key holding "=" (oslo.config would split the line there)', { DEFAULT: { 'a=b': 'x' } }, /\[DEFAULT\] a=b: the key carries "=" or ":"/],
      ['a section name holding a bracket', { 'a]b': { k: 'v' } }, /section \[a\]b\]: its name carries a bracket/],
    ];
    for (const [title, extra, expected] of cases) {
      it(title, () => {
        const result = renderNovaConfig({ name: NAME, spec: withExtra(extra), settings: SETTINGS });
        expect(result.ok).to.equal(false);
        if (result.ok) return;
        expect(result.problems).to.have.length(1);
        expect(result.problems[0]).to.match(expected);
      });
    }

    it('a problem names the place, never the value', () => {
      const result = renderNovaConfig({ name: NAME, spec: withExtra({ DEFAULT: { debug: 'hunter2-secret\n' } }), settings: SETTINGS });
      expect(result.ok).to.equal(false);
      expect(JSON.stringify(result)).to.not.include('hunter2');
    });

    it('a setting carrying a control character is refused too (the lock path is written into nova.conf)', () => {
      const result = renderNovaConfig({ name: NAME, spec: baseSpec(), settings: podSettings({ lockPath: '/tmp/x\n' }) });
      expect(result.ok).to.equal(false);
    });
  });

  describe('deterministic bytes, content-addressed name', () => {
    it('the same spec renders the same bytes and name, whatever order its extraConfig maps were written in', () => {
      const a = render(withExtra({ quota: { ram: '1', cores: '2' }, DEFAULT: { debug: 'true', verbose: 'x' } }));
      const b = render(withExtra({ DEFAULT: { verbose: 'x', debug: 'true' }, quota: { cores: '2', ram: '1' } }));
      expect(b).to.deep.equal(a);
      expect(JSON.stringify(Object.keys(b.files))).to.equal(JSON.stringify(Object.keys(a.files)));
    });

    it('the name is {name}-config-<10 hex of the files\' digest>', () => {
      const config = render(baseSpec());
      expect(config.name).to.equal(`${NAME}-config-${config.hash}`);
      expect(config.hash).to.match(/^[0-9a-f]{10}$/).and.equal(configHash(config.files));
    });

    const changes: Array<[string, NovaSpec]> = [
      ['an extraConfig value', withExtra({ DEFAULT: { debug: 'true' } })],
      ['the console proxy switched on', baseSpec((s) => (s.consoleProxy = { enabled: true }))],
      ['a TLS bus', baseSpec((s) => (s.messaging.tls = { enabled: true, caSecretRef: { name: 'ca' } }))],
    ];
    for (const [title, spec] of changes) it(`a change of any file makes a new name: ${title}`, () => expect(render(spec).name).to.not.equal(render(baseSpec()).name));

    it('a change of the bytes alone makes a new name (two values of the same length)', () => {
      expect(render(withExtra({ DEFAULT: { debug: 'aaaa' } })).name).to.not.equal(render(withExtra({ DEFAULT: { debug: 'bbbb' } })).name);
    });

    it('a spec change that renders the same files keeps the name (the replicas, the image, the release are not config)', () => {
      const other = baseSpec((s) => {
        s.replicas = 3;
        s.image = 'ghcr.io/c5c3/nova:2025.2';
        s.openStackRelease = '2025.2';
      });
      expect(render(other).name).to.equal(render(baseSpec()).name);
    });
  });

  describe('the part-1 Jobs mount the rendered config', () => {
    const config = render(withExtra({ DEFAULT: { debug: 'true' } }));

    it('a Job and the archive mount the config they are handed: its name and every file', () => {
      for (const spec of [renderNovaJob(REF, baseSpec(), 'sync', { config }), renderArchiveCronJob(REF, baseSpec(), { config })]) {
        expect(spec.config).to.deep.equal({ name: config.name, files: config.files });
      }
    });

    it('a changed config is a changed Job hash; the same config the same hash', () => {
      const other = render(withExtra({ DEFAULT: { debug: 'false' } }));
      for (const job of ['sync', 'expand', 'migrate', 'contract'] as const) {
        expect(renderNovaJob(REF, baseSpec(), job, { config }).templateHash, job).to.equal(renderNovaJob(REF, baseSpec(), job, { config: { ...config } }).templateHash);
        expect(renderNovaJob(REF, baseSpec(), job, { config: other }).templateHash, job).to.not.equal(renderNovaJob(REF, baseSpec(), job, { config }).templateHash);
      }
      expect(renderArchiveCronJob(REF, baseSpec(), { config: other }).templateHash).to.not.equal(renderArchiveCronJob(REF, baseSpec(), { config }).templateHash);
    });

    it('without a handed config a Job renders the spec\'s own (the pod settings): nova.conf is the renderer\'s, not a hand-kept one', () => {
      const own = renderNovaConfig({ name: NAME, spec: baseSpec(), settings: podSettings() });
      expect(own.ok && renderNovaJob(REF, baseSpec(), 'sync').config).to.deep.equal(own.ok && { name: own.config.name, files: own.config.files });
    });

    it('without a handed config, a spec that cannot be rendered renders no Job', () => {
      expect(() => renderNovaJob(REF, withExtra({ DEFAULT: { debug: 'x\n' } }), 'sync')).to.throw(/cannot be rendered: \[DEFAULT\] debug: the value carries a control character/);
    });
  });
});
