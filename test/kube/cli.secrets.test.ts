/**
 * Secrets in the CLI: `regent apply -f` of v1 Secret documents, `regent get secrets`, `regent delete
 * secret` — the helpers, then the real command, with every byte it prints checked for the values.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { applyManifestFiles, applyManifests, describeApplyOutcome, parseManifests } from '../../src/kube/cli/manifests.js';
import { deleteSecret, formatSecrets, getSecrets } from '../../src/kube/cli/secrets.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { BadRequest, Invalid, NotFound } from '../../src/kube/errors.js';
import { leaksIn } from './secrets.conformance.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const marker = (label: string): string => `v-${label}-${randomBytes(9).toString('hex')}`;

const secretYaml = (name: string, body: string, namespace?: string): string =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}type: Opaque\n${body}`;

describe('CLI: secrets', () => {
  let dir: string;
  let source: EmbeddedResourceSource;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-cli-secrets-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  });
  afterEach(async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('apply takes v1 Secret documents: stringData as text, data as base64, stringData winning for a key in both; kubectl wording', async () => {
    const [password, token, overridden] = [marker('pw'), marker('tok'), marker('over')];
    const text = [
      secretYaml('region-one', `stringData:\n  password: ${password}\n  user: admin\n`),
      secretYaml('acme-web', `data:\n  token: ${b64(token)}\n  both: ${b64(overridden)}\nstringData:\n  both: from-stringData\n`, 'team-a'),
      'apiVersion: regent.dev/v1alpha1\nkind: Network\nmetadata: {name: net-a}\nspec: {identityRef: {name: acme}, prefix: 10.0.0.0/24}\n',
    ].join('---\n');
    const outcomes = await applyManifests(source, text);
    expect(outcomes.map(describeApplyOutcome)).to.deep.equal(['secret/region-one created', 'secret/acme-web created', 'network.regent.dev/net-a created']);
    expect((await source.secrets.get('default', 'region-one'))?.data).to.deep.equal({ password, user: 'admin' });
    expect((await source.secrets.get('team-a', 'acme-web'))?.data).to.deep.equal({ token, both: 'from-stringData' });
    expect((await applyManifests(source, text)).map((o) => o.action)).to.deep.equal(['unchanged', 'unchanged', 'unchanged']);
    const changed = await applyManifests(source, text.replace(`password: ${password}`, `password: ${marker('pw2')}`));
    expect(changed.map((o) => o.action)).to.deep.equal(['configured', 'unchanged', 'unchanged']);
    expect(outcomes[0]).to.deep.include({ kind: 'Secret', namespace: 'default', name: 'region-one', keys: ['password', 'user'] });
    expect(leaksIn([JSON.stringify(outcomes), JSON.stringify(changed)], [password, token, overridden]), 'an apply outcome holds no value').to.deep.equal([]);
  });

  it('a Secret document with bad base64, a non-string value, a bad key, a bad name or a type other than Opaque is refused naming the document and field, never the value; nothing is applied', async () => {
    const notBase64 = marker('notb64'); // has '-' : not standard base64
    const secret = marker('kept');
    const text = [
      'apiVersion: regent.dev/v1alpha1\nkind: Network\nmetadata: {name: net-a}\nspec: {identityRef: {name: acme}, prefix: 10.0.0.0/24}\n',
      secretYaml('bad-b64', `data:\n  token: ${notBase64}\n`),
      secretYaml('bad-number', 'stringData:\n  port: 5432\n'),
      secretYaml('bad-key', `stringData:\n  "has space": ${secret}\n`),
      secretYaml('Bad_Name', `stringData:\n  token: ${secret}\n`),
      secretYaml('tls', `stringData:\n  tls.key: ${secret}\n`).replace('type: Opaque', 'type: kubernetes.io/tls'),
    ].join('---\n');
    const error = await applyManifestFiles(source, [{ file: 'creds.yaml', text }]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Invalid);
    expect((error as Invalid).message.split('\n')).to.deep.equal([
      'creds.yaml: document 2: data[token]: Invalid value: not valid base64 (the value is not shown); use stringData for plain text',
      'creds.yaml: document 3: stringData[port]: Invalid value: must be a string (the value is not shown)',
      'creds.yaml: document 4: Secret "default/bad-key" is invalid: data[has space]: Invalid value: "has space": a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'',
      'creds.yaml: document 5: Secret "default/Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain (at most 253 characters of [a-z0-9-.], starting and ending with an alphanumeric character)',
      'creds.yaml: document 6: type: Unsupported value: "kubernetes.io/tls": the secret store holds Opaque secrets only',
    ]);
    expect(leaksIn([(error as Error).message, (error as Error).stack ?? ''], [notBase64, secret])).to.deep.equal([]);
    expect((await source.list('Network')).items, 'the valid Network is not applied either').to.deep.equal([]);
    expect(await source.secrets.list()).to.deep.equal([]);
  });

  it('fields the secret store does not keep (annotations, immutable) are warnings; labels are kept', async () => {
    const [outcome] = await applyManifests(source, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: cred\n  labels: {tier: region}\n  annotations: {note: x}\nimmutable: true\nstringData: {token: ${marker('w')}}\n`);
    expect(outcome!.warnings).to.deep.equal(['field "immutable" is not kept by the secret store (ignored)', 'field "metadata.annotations" is not kept by the secret store (ignored)']);
    expect((await source.secrets.get('default', 'cred'))?.labels).to.deep.equal({ 'app.kubernetes.io/managed-by': 'regent', tier: 'region' });
  });

  it('parseManifests refuses a Secret document: it is not a Regent resource', () => {
    const error = (() => {
      try {
        return parseManifests(secretYaml('cred', 'stringData: {token: x}\n'));
      } catch (e) {
        return e;
      }
    })();
    expect(error).to.be.instanceOf(BadRequest);
    expect((error as Error).message).to.match(/^document 1: a Secret, not a Regent resource/);
  });

  it('get lists namespace, name, keys and age (yaml and json: names, keys, versions, labels), never a value; delete deletes, then NotFound', async () => {
    const value = marker('listed');
    await applyManifests(source, [secretYaml('b-cred', `stringData: {token: ${value}, id: x}\n`), secretYaml('a-cred', `stringData: {password: ${value}}\n`, 'team-a')].join('---\n'));
    const all = await getSecrets(source);
    const now = new Date(Date.parse(all[0]!.createdAt) + 3 * 60_000);
    expect(formatSecrets(all, 'table', { showNamespace: true, now })).to.equal(['NAMESPACE   NAME     KEYS       AGE', 'default     b-cred   id,token   3m', 'team-a      a-cred   password   3m'].join('\n'));
    expect(formatSecrets(await getSecrets(source, undefined, { namespace: 'team-a' }), 'table', { now })).to.equal(['NAME     KEYS       AGE', 'a-cred   password   3m'].join('\n'));
    const one = await getSecrets(source, 'b-cred');
    expect(parse(formatSecrets(one, 'yaml', { single: true }))).to.deep.equal({ namespace: 'default', name: 'b-cred', keys: ['id', 'token'], version: one[0]!.version, labels: { 'app.kubernetes.io/managed-by': 'regent' }, createdAt: one[0]!.createdAt });
    expect(JSON.parse(formatSecrets(all, 'json')).items.map((i: { name: string }) => i.name)).to.deep.equal(['b-cred', 'a-cred']);
    expect(leaksIn([formatSecrets(all, 'table'), formatSecrets(all, 'yaml'), formatSecrets(all, 'json')], [value])).to.deep.equal([]);
    expect(await getSecrets(source, 'nope').catch((e: unknown) => e)).to.be.instanceOf(NotFound);
    expect(await deleteSecret(source, 'b-cred')).to.equal('secret "b-cred" deleted');
    expect(await deleteSecret(source, 'b-cred').catch((e: unknown) => e)).to.be.instanceOf(NotFound);
    expect(formatSecrets([], 'table')).to.equal('No resources found.');
  });
});

describe('the regent command: secrets', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'regent-cmd-secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('apply, get secrets (table, yaml, json, one), delete secret and their failures: no value ever reaches stdout or stderr, even at debug level', () => {
    const values = [marker('string-data'), marker('data'), marker('rejected')];
    const resources = ['--resources', `embedded:${join(dir, 'resources.db')}`];
    const runs: Array<{ args: string[]; code: number | null; out: string; err: string }> = [];
    const regent = (args: string[], env: Record<string, string> = {}) => {
      const result = spawnSync(process.execPath, ['bin/regent.js', ...args, ...resources], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'debug', ...env } });
      const run = { args, code: result.status, out: result.stdout, err: result.stderr };
      runs.push(run);
      return run;
    };
    const good = join(dir, 'good.yaml');
    writeFileSync(good, [secretYaml('region-one', `stringData:\n  password: ${values[0]}\n`), secretYaml('acme-web', `data:\n  token: ${b64(values[1]!)}\n`, 'team-a')].join('---\n'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, secretYaml('broken', `data:\n  token: ${values[2]}\n  "bad key": ${b64(values[2]!)}\n`));

    expect(regent(['apply', '-f', good]).out.trim().split('\n')).to.deep.equal(['secret/region-one created', 'secret/acme-web created']);
    const table = regent(['get', 'secrets']);
    expect(table.code).to.equal(0);
    expect(table.out).to.match(/^NAMESPACE\s+NAME\s+KEYS\s+AGE\ndefault\s+region-one\s+password\s+\d+s\nteam-a\s+acme-web\s+token\s+\d+s\n$/);
    expect(parse(regent(['get', 'secret', 'acme-web', '-n', 'team-a', '-o', 'yaml']).out)).to.deep.include({ name: 'acme-web', keys: ['token'] });
    expect(JSON.parse(regent(['get', 'secrets', '-o', 'json']).out).items).to.have.length(2);
    const refused = regent(['apply', '-f', bad]);
    expect(refused.code).to.equal(1);
    expect(refused.err).to.include('bad.yaml: document 1: data[token]: Invalid value: not valid base64');
    expect(regent(['get', 'secret', 'broken']).code).to.equal(1);
    expect(regent(['delete', 'secret', 'region-one']).out.trim()).to.equal('secret "region-one" deleted');
    const again = regent(['delete', 'secret', 'region-one']);
    expect(again.code).to.equal(1);
    expect(again.err.split('\n')[0]).to.equal('regent: Secret "default/region-one" not found');
    expect(regent(['get', 'secrets', '-n', 'default']).out.trim()).to.equal('No resources found.');

    const printed = runs.flatMap((r) => [r.out, r.err]);
    expect(leaksIn(printed, values), `every byte the command printed:\n${printed.join('\n')}`).to.deep.equal([]);
  });
});
