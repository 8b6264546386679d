import { expect } from 'chai';
import https from 'node:https';
import { InvalidConfig } from '../../src/openstack/errors.js';
import { cloudFromEnv, cloudsYamlCandidates, normalizeAuthUrl, resolveCloudConfig } from '../../src/openstack/keystone/clouds-config.js';
import { loadCloudConfig } from '../../src/openstack/keystone/clouds-reader.js';
import { agentFor, httpsAgentForCloud } from '../../src/openstack/keystone/tls.js';

const YAML = `
clouds:
  sandbox-demo:
    auth:
      auth_url: http://127.0.0.1:5000
      username: demo
      password: s3cret-pw
      project_name: demo
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    interface: internal
    cacert: /etc/ssl/private-ca.pem
  appcred:
    auth_type: v3applicationcredential
    auth:
      auth_url: https://keystone.example.com/v3/
      application_credential_id: ac-1
      application_credential_secret: ac-secret
    verify: false
  appcred-by-name:
    auth_type: v3applicationcredential
    auth:
      auth_url: https://keystone.example.com/v3
      application_credential_name: regent
      application_credential_secret: ac-secret
      username: svc
      user_domain_id: d1
  domain-scoped:
    auth:
      auth_url: https://keystone.example.com
      user_id: u-1
      password: pw-1234
      domain_name: Managed
    regions: [RegionTwo]
  ids:
    auth:
      auth_url: https://keystone.example.com
      username: x
      password: pw-1234
      project_id: p-1
`;

describe('clouds.yaml and OS_* environment', () => {
  const file = { path: '/tmp/clouds.yaml', contents: YAML };

  it('OS_CLOUD picks a password cloud with project scope, region, interface and CA', () => {
    const c = resolveCloudConfig({ env: { OS_CLOUD: 'sandbox-demo' }, cloudsYaml: file });
    expect(c).to.deep.equal({
      cloudName: 'sandbox-demo',
      authUrl: 'http://127.0.0.1:5000/v3',
      auth: { type: 'password', user: { name: 'demo', domain: { name: 'Default' } }, password: 's3cret-pw' },
      scope: { kind: 'project', project: { name: 'demo', domain: { name: 'Default' } } },
      regionName: 'RegionOne',
      interface: 'internal',
      cacertPath: '/etc/ssl/private-ca.pem',
      verify: true,
    });
  });

  it('an explicit cloud name wins over OS_CLOUD', () => {
    expect(resolveCloudConfig({ env: { OS_CLOUD: 'sandbox-demo' }, cloudsYaml: file, cloudName: 'ids' }).cloudName).to.equal('ids');
  });

  it('application credential by id is unscoped and verify:false is kept', () => {
    const c = resolveCloudConfig({ env: { OS_CLOUD: 'appcred' }, cloudsYaml: file });
    expect(c.auth).to.deep.equal({ type: 'application-credential', credential: { id: 'ac-1' }, secret: 'ac-secret' });
    expect(c.scope).to.deep.equal({ kind: 'unscoped' });
    expect(c.verify).to.equal(false);
    expect(c.authUrl).to.equal('https://keystone.example.com/v3');
  });

  it('application credential by name carries its user', () => {
    const c = resolveCloudConfig({ env: { OS_CLOUD: 'appcred-by-name' }, cloudsYaml: file });
    expect(c.auth).to.deep.equal({ type: 'application-credential', credential: { name: 'regent', user: { name: 'svc', domain: { id: 'd1' } } }, secret: 'ac-secret' });
  });

  it('a domain scope, a user id and a regions list', () => {
    const c = resolveCloudConfig({ env: { OS_CLOUD: 'domain-scoped' }, cloudsYaml: file });
    expect(c.scope).to.deep.equal({ kind: 'domain', domain: { name: 'Managed' } });
    expect(c.auth).to.deep.include({ user: { id: 'u-1' } });
    expect(c.regionName).to.equal('RegionTwo');
  });

  it('a project id scope; the user domain defaults to Default', () => {
    const c = resolveCloudConfig({ env: { OS_CLOUD: 'ids' }, cloudsYaml: file });
    expect(c.scope).to.deep.equal({ kind: 'project', project: { id: 'p-1' } });
    expect(c.auth).to.deep.include({ user: { name: 'x', domain: { name: 'Default' } } });
  });

  it('the plain environment form with password', () => {
    const c = cloudFromEnv({
      OS_AUTH_URL: 'http://k:5000/v3', OS_USERNAME: 'demo', OS_PASSWORD: 'pw-1234', OS_PROJECT_NAME: 'demo',
      OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_REGION_NAME: 'RegionOne', OS_INTERFACE: 'publicURL', OS_CACERT: '/ca.pem',
    });
    expect(c.scope).to.deep.equal({ kind: 'project', project: { name: 'demo', domain: { name: 'Default' } } });
    expect(c.interface).to.equal('public');
    expect(c.cacertPath).to.equal('/ca.pem');
    expect(c.regionName).to.equal('RegionOne');
  });

  it('the plain environment form with an application credential (auth type inferred)', () => {
    const c = resolveCloudConfig({ env: { OS_AUTH_URL: 'http://k:5000', OS_APPLICATION_CREDENTIAL_ID: 'ac', OS_APPLICATION_CREDENTIAL_SECRET: 'sec-1234' } });
    expect(c.auth).to.deep.equal({ type: 'application-credential', credential: { id: 'ac' }, secret: 'sec-1234' });
  });

  it('OS_INSECURE=true means verify false', () => {
    expect(cloudFromEnv({ OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_ID: 'x', OS_INSECURE: 'true' }).verify).to.equal(false);
  });

  const refusals: Array<[string, Parameters<typeof resolveCloudConfig>[0], RegExp]> = [
    ['nothing selected', { env: {} }, /no cloud selected/],
    ['OS_CLOUD without a file', { env: { OS_CLOUD: 'x' } }, /no clouds\.yaml/],
    ['an unknown cloud', { env: { OS_CLOUD: 'nope' }, cloudsYaml: file }, /cloud 'nope' not found/],
    ['a password without a scope', { env: { OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PASSWORD: 'p' } }, /no project or domain/],
    ['no password', { env: { OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PROJECT_ID: 'x' } }, /password is missing/],
    ['an app credential without secret', { env: { OS_AUTH_URL: 'http://k', OS_APPLICATION_CREDENTIAL_ID: 'a' } }, /secret is missing/],
    ['an unsupported auth type', { env: { OS_AUTH_URL: 'http://k', OS_AUTH_TYPE: 'token' } }, /not supported/],
    ['a bad interface', { env: { OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_ID: 'x', OS_INTERFACE: 'private' } }, /interface/],
  ];
  for (const [what, input, message] of refusals) {
    it(`refuses ${what} with InvalidConfig`, () => {
      expect(() => resolveCloudConfig(input)).to.throw(InvalidConfig, message);
    });
  }

  it('invalid YAML is refused without quoting the file (it may hold a password)', () => {
    const bad = 'clouds:\n  x:\n    auth: {password: "hunter22\n';
    expect(() => resolveCloudConfig({ env: { OS_CLOUD: 'x' }, cloudsYaml: { path: 'c.yaml', contents: bad } }))
      .to.throw(InvalidConfig).with.property('message').that.does.not.contain('hunter22');
  });

  it('normalizes auth URLs to /v3', () => {
    expect(normalizeAuthUrl('http://h:5000')).to.equal('http://h:5000/v3');
    expect(normalizeAuthUrl('http://h:5000/v3/')).to.equal('http://h:5000/v3');
    expect(normalizeAuthUrl('http://h/identity/v2.0')).to.equal('http://h/identity/v3');
  });

  it('searches OS_CLIENT_CONFIG_FILE alone, else ./, ~/.config/openstack/, /etc/openstack/', () => {
    expect(cloudsYamlCandidates({ OS_CLIENT_CONFIG_FILE: '/x/c.yaml' }, '/w', '/h')).to.deep.equal(['/x/c.yaml']);
    expect(cloudsYamlCandidates({}, '/w', '/h')).to.deep.equal(['/w/clouds.yaml', '/h/.config/openstack/clouds.yaml', '/etc/openstack/clouds.yaml']);
  });

  it('the reader takes the first clouds.yaml that exists', async () => {
    const read: string[] = [];
    const c = await loadCloudConfig({
      env: { OS_CLOUD: 'ids' }, cwd: '/w', home: '/h',
      readFile: (path) => {
        read.push(path);
        return Promise.resolve(path === '/h/.config/openstack/clouds.yaml' ? YAML : undefined);
      },
    });
    expect(read).to.deep.equal(['/w/clouds.yaml', '/h/.config/openstack/clouds.yaml']);
    expect(c.cloudName).to.equal('ids');
  });

  it('the reader does not look for files in the plain environment form', async () => {
    const c = await loadCloudConfig({ env: { OS_AUTH_URL: 'http://k', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_ID: 'x' }, readFile: () => Promise.reject(new Error('no reads')) });
    expect(c.cloudName).to.equal(undefined);
  });

  describe('TLS', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    it('a CA bundle becomes an https.Agent trusting exactly it', async () => {
      const c = resolveCloudConfig({ env: { OS_CLOUD: 'sandbox-demo' }, cloudsYaml: file });
      const agent = await httpsAgentForCloud(c, undefined, (p) => (p === '/etc/ssl/private-ca.pem' ? Promise.resolve(pem) : Promise.reject(new Error('x'))));
      expect(agent).to.be.instanceOf(https.Agent);
      expect(agent?.options.ca).to.equal(pem);
    });
    it('verify:false becomes an agent that does not reject', () => {
      expect(agentFor({ verify: false })?.options.rejectUnauthorized).to.equal(false);
      expect(agentFor({ verify: true })).to.equal(undefined);
    });
    it('an unreadable or non-PEM cacert is InvalidConfig', async () => {
      const c = resolveCloudConfig({ env: { OS_CLOUD: 'sandbox-demo' }, cloudsYaml: file });
      let error: unknown;
      try {
        await httpsAgentForCloud(c, undefined, () => Promise.resolve('not a cert'));
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(InvalidConfig);
    });
  });
});
