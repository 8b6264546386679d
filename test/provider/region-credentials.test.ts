/** A Region's credentials Secret → the cloud Regent connects with (issue 11), and every way it is refused. */
import { expect } from 'chai';
import { regionCloudConfig, RegionUnusable } from '../../src/provider/regions/credentials.js';

const spec = { endpoint: 'http://127.0.0.1:5000/v3', region: 'RegionOne', secretName: 'default/region-one-credentials' };
const cloudsYaml = (authUrl = 'http://127.0.0.1:5000/v3', region = 'RegionOne', name = 'admin') => `clouds:
  ${name}:
    auth: { auth_url: ${authUrl}, username: admin, password: s3cret-value, project_name: admin, user_domain_name: Default, project_domain_name: Default }
    region_name: ${region}
`;
const refused = (data: Record<string, string> | undefined) => {
  try {
    regionCloudConfig(spec, data);
  } catch (error) {
    expect(error).to.be.instanceOf(RegionUnusable);
    expect((error as Error).message).to.not.include('s3cret-value');
    return error as RegionUnusable;
  }
  throw new Error('not refused');
};

describe('region credentials', () => {
  it('a clouds.yaml entry in the Secret, on the Region’s endpoint and region', () => {
    const cloud = regionCloudConfig(spec, { 'clouds.yaml': cloudsYaml() });
    expect(cloud).to.deep.include({ authUrl: 'http://127.0.0.1:5000/v3', regionName: 'RegionOne' });
    expect(cloud.auth).to.deep.include({ type: 'password' });
  });
  it('an application credential as plain keys: the Region’s endpoint is the auth URL', () => {
    const cloud = regionCloudConfig(spec, { application_credential_id: 'ac1', application_credential_secret: 's3cret-value' });
    expect(cloud.auth).to.deep.equal({ type: 'application-credential', credential: { id: 'ac1' }, secret: 's3cret-value' });
    expect(cloud.scope).to.deep.equal({ kind: 'unscoped' });
    expect(cloud.authUrl).to.equal('http://127.0.0.1:5000/v3');
  });
  it('a missing Secret is SecretMissing', () => expect(refused(undefined).problem).to.equal('SecretMissing'));
  it('a Secret with neither form is SecretInvalid, naming what it needs', () => {
    const e = refused({ token: 's3cret-value' });
    expect(e.problem).to.equal('SecretInvalid');
    expect(e.message).to.match(/application_credential_id and application_credential_secret, or username and password/);
  });
  it('a clouds.yaml with several clouds and no `cloud` key is SecretInvalid; `cloud` picks one', () => {
    const two = cloudsYaml() + cloudsYaml().replace('clouds:\n', '').replace('admin:', 'other:');
    expect(refused({ 'clouds.yaml': two }).problem).to.equal('SecretInvalid');
    expect(regionCloudConfig(spec, { 'clouds.yaml': two, cloud: 'other' }).cloudName).to.equal('other');
  });
  it('a Secret for another Keystone is EndpointMismatch, never silently preferred', () => {
    const e = refused({ 'clouds.yaml': cloudsYaml('http://192.0.2.10:5000/v3') });
    expect(e.problem).to.equal('EndpointMismatch');
    expect(e.message).to.include('http://192.0.2.10:5000/v3').and.include('http://127.0.0.1:5000/v3');
  });
  it('a Secret for another region is EndpointMismatch', () => expect(refused({ 'clouds.yaml': cloudsYaml(undefined, 'RegionTwo') }).problem).to.equal('EndpointMismatch'));
  it('unparseable YAML is SecretInvalid without quoting it', () => {
    const e = refused({ 'clouds.yaml': 'clouds: [s3cret-value' });
    expect(e.problem).to.equal('SecretInvalid');
  });
});
