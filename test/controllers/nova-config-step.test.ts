/**
 * The Config step (src/controllers/nova/steps/config.ts): each condition and reason it sets, the config it hands on
 * (published, or the live API's when the spec cannot be rendered), that the lane always continues, and that no
 * credential of the pass reaches a published byte.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runLane } from '../../src/controllers/nova/lane.js';
import { configStep } from '../../src/controllers/nova/steps/config.js';
import { KubernetesConfigStore } from '../../src/nova/config/kubernetes.js';
import { LocalConfigStore } from '../../src/nova/config/local.js';
import type { ConfigPort } from '../../src/nova/config/port.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import { FakeApiServer } from '../kube/support/fake-apiserver.js';
import { CREDENTIALS, NAME, NS, baseSpec } from '../nova/support/config-fixtures.js';
import { openConfigRig, withConfigs, type ConfigRig } from './nova-config-rig.js';

const withExtra = (extraConfig: NovaSpec['extraConfig']) => baseSpec((s) => (s.extraConfig = extraConfig));
const BROKEN = withExtra({ DEFAULT: { debug: 'false\n[database]\nconnection = sqlite://' } });

/** Every file under a directory, path → content. */
const walk = (dir: string): Array<[string, string]> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [[path, readFileSync(path, 'utf8')] as [string, string]];
  });

describe('the Config step', () => {
  let rig: ConfigRig;
  beforeEach(() => (rig = openConfigRig()));
  afterEach(async () => rig.close());

  it('a spec that renders: published, handed on as values.config, ExtraConfigHealthy True NoOwnedKeysOverridden, SecretsReady left alone, the lane continues', async () => {
    const pass = rig.pass();
    const result = await runLane([configStep], pass);
    expect(result.outcome).to.deep.equal({ kind: 'continue' });
    expect(result.conditions).to.deep.equal([{ type: 'ExtraConfigHealthy', status: 'True', reason: 'NoOwnedKeysOverridden', message: 'spec.extraConfig sets no key Regent renders' }]);
    expect(pass.values.config?.name).to.match(new RegExp(`^${NAME}-config-[0-9a-f]{10}$`));
    expect(await rig.configs.current(NS, NAME)).to.deep.equal(pass.values.config);
    expect(pass.values.secretsNotReady).to.equal(undefined);
  });

  it('an extraConfig that sets keys of Regent\'s: ExtraConfigHealthy False OwnedKeysOverridden naming each, the config still published (informational only)', async () => {
    const pass = rig.pass(withExtra({ placement: { auth_url: 'http://elsewhere/v3' }, DEFAULT: { transport_url: 'rabbit://x', debug: 'true' } }));
    const report = await configStep.run(pass);
    expect(report.outcome).to.deep.equal({ kind: 'continue' });
    expect(report.conditions).to.deep.equal([
      {
        type: 'ExtraConfigHealthy',
        status: 'False',
        reason: 'OwnedKeysOverridden',
        message: 'spec.extraConfig overrides keys Regent renders: [DEFAULT] transport_url (a credential Regent delivers as env: the file value has no effect), [placement] auth_url (informational: Ready does not depend on it)',
      },
    ]);
    expect(pass.values.config).to.not.equal(undefined);
    expect((await rig.configs.current(NS, NAME))?.name).to.equal(pass.values.config!.name);
  });

  it('a control character, an API running on an earlier config: SecretsReady False ConfigError naming the place, the live config handed on, nothing published, the lane continues', async () => {
    const good = rig.pass();
    await configStep.run(good);
    const pass = rig.pass(BROKEN);
    const result = await runLane([configStep], pass);
    expect(result.outcome).to.deep.equal({ kind: 'continue' });
    const message = `the config is not rendered: [DEFAULT] debug: the value carries a control character (U+000A); the roles keep ${good.values.config!.name}, the config the live API mounts`;
    expect(result.conditions).to.deep.equal([
      { type: 'SecretsReady', status: 'False', reason: 'ConfigError', message },
      { type: 'ExtraConfigHealthy', status: 'True', reason: 'NoOwnedKeysOverridden', message: 'spec.extraConfig sets no key Regent renders' },
    ]);
    expect(pass.values.config).to.deep.equal(good.values.config);
    // the SecretsAvailable step after it must not cover the False with a True
    expect(pass.values.secretsNotReady).to.deep.equal({ reason: 'ConfigError', message });
    expect(readdirSync(join(rig.dir, 'nova', NS, NAME)).filter((e) => e.startsWith(`${NAME}-config-`))).to.deep.equal([good.values.config!.name]);
  });

  it('the fallback is what the live API mounts, not merely the last published (the local workloads\' hook)', async () => {
    const live = { name: '' };
    const configs = new LocalConfigStore({ dir: join(rig.dir, 'hooked'), liveConfig: async () => live.name });
    const first = withConfigs(rig.pass(), configs);
    await configStep.run(first);
    live.name = first.values.config!.name;
    await configStep.run({ ...rig.pass(withExtra({ DEFAULT: { debug: 'true' } })), deps: first.deps });
    const pass = { ...rig.pass(BROKEN), deps: first.deps };
    await configStep.run(pass);
    expect(pass.values.config?.name).to.equal(live.name);
  });

  it('a control character and no config live yet: ConfigError says there is none to keep, no config handed on (the Database step waits), the lane continues', async () => {
    const pass = rig.pass(BROKEN);
    const report = await configStep.run(pass);
    expect(report.outcome).to.deep.equal({ kind: 'continue' });
    expect(report.conditions[0]).to.deep.equal({
      type: 'SecretsReady',
      status: 'False',
      reason: 'ConfigError',
      message: 'the config is not rendered: [DEFAULT] debug: the value carries a control character (U+000A); no API runs on an earlier config, so there is none to keep: nothing that needs a config runs until the spec is fixed',
    });
    expect(pass.values.config).to.equal(undefined);
  });

  it('a fixed spec after a ConfigError renders and publishes again, and no longer reports the error', async () => {
    await configStep.run(rig.pass(BROKEN));
    const pass = rig.pass(withExtra({ DEFAULT: { debug: 'false' } }));
    const report = await configStep.run(pass);
    expect(report.conditions.map((c) => c.type)).to.deep.equal(['ExtraConfigHealthy']);
    expect(pass.values.secretsNotReady).to.equal(undefined);
    expect(pass.values.config).to.not.equal(undefined);
  });

  it('no credential of the pass reaches a published byte, a file name, the config\'s name or its hash (local store)', async () => {
    const pass = rig.pass();
    await configStep.run(pass);
    const published = walk(join(rig.dir, 'nova'));
    expect(published.length).to.be.greaterThan(6);
    const everything = JSON.stringify([published, pass.values.config]);
    for (const [what, value] of Object.entries(CREDENTIALS)) expect(everything, what).to.not.include(value);
    // and the pass did have them to leak
    expect(JSON.stringify(pass.values)).to.include(CREDENTIALS.serviceUser).and.include(CREDENTIALS.busPassword);
  });

  it('no credential of the pass reaches the API server (Kubernetes store: every request body)', async () => {
    const fake = await FakeApiServer.start();
    try {
      const configs: ConfigPort = new KubernetesConfigStore({ kubeConfig: fake.kubeConfig(), settings: { keystoneURL: 'https://keystone.example:5000/v3' } });
      const pass = withConfigs(rig.pass(), configs);
      await configStep.run(pass);
      expect(fake.requests.some((r) => r.method === 'POST')).to.equal(true);
      const wire = JSON.stringify(fake.requests);
      for (const [what, value] of Object.entries(CREDENTIALS)) expect(wire, what).to.not.include(value);
    } finally {
      await fake.close();
    }
  });

  it('a publish the port refuses ends the lane as an error (backoff): nothing is handed on', async () => {
    const failing: ConfigPort = { settings: (ns, nova) => rig.configs.settings(ns, nova), publish: async () => Promise.reject(new Error('the API server answered 500')), current: async () => undefined };
    const pass = withConfigs(rig.pass(), failing);
    const result = await runLane([configStep], pass);
    expect(result.outcome.kind).to.equal('error');
    expect(result.endedAt).to.equal('Config');
    expect(pass.values.config).to.equal(undefined);
  });

  it('a lane wired without a ConfigPort fails loudly, naming the missing port', async () => {
    const pass = withConfigs(rig.pass(), undefined);
    const result = await runLane([configStep], pass);
    expect(result.outcome.kind).to.equal('error');
    expect(String((result.outcome as { error: Error }).error.message)).to.match(/no ConfigPort \(NovaControllerDeps\.configs\)/);
  });
});
