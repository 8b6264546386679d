/**
 * Issue 27: the nova_operator_* series, read as Prometheus reads them — over HTTP from the operations listener's
 * /metrics of a real control plane (in process, embedded stores in a temp dir, the simulator on 127.0.0.1) — after
 * real passes of the example Nova (examples/nova.yaml):
 *
 * 1. without its Secrets the lane ends at the Secrets step: only that step has a duration series, and all six series
 *    names are exposed (HELP/TYPE) from the start;
 * 2. its Secrets put, DBConnectionSecrets, TransportURLSecret and Config are timed under their own sub_reconciler
 *    while their error series say condition_type="SecretsReady";
 * 3. a step that throws is counted: the Config step's publish fails while a plain file stands where the embedded
 *    default's config store keeps this Nova's configs (`<dataDir>/nova/default/nova`), so
 *    errors_total{sub_reconciler="Config",condition_type="SecretsReady"} rises; the file removed, the lane runs on to
 *    the Database step (ClusterNotReady: the MariaDB the Secret `mariadb-mariadb` names is a closed 127.0.0.1 port),
 *    a wait, not an error;
 * 4. deleted, the Nova leaves no series labelled nova="nova". On the embedded default without nova-manage no Job runs,
 *    so no per-CR series was ever created here and that check is vacuous; test/e2e/nova.e2e.test.ts proves the per-CR
 *    series and their removal with real Jobs through a scripted nova-manage.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { NOVA_METRIC_NAMES } from '../../src/observability/nova-metrics.js';
import { planeOptions, until } from './support/plane.js';

const NOVA = 'nova';
const EXAMPLE = readFileSync('examples/nova.yaml', 'utf8');

/** Every pipeline step, in the lane's order, then the parallel group (src/controllers/nova/pipeline.ts). */
const STEPS = [
  'Secrets', 'DBConnectionSecrets', 'TransportURLSecret', 'Config', 'ComputeConfig', 'SecretsAvailable', 'Database',
  'Conductor', 'Scheduler', 'Metadata', 'ConsoleProxy', 'Deployment', 'DBArchive',
  'HTTPRoute', 'MetadataHTTPRoute', 'ConsoleHTTPRoute', 'HealthCheck', 'HPA', 'VPA', 'NetworkPolicy',
];
/** The steps that report under SecretsReady while keeping their own sub_reconciler. */
const SECRETS_READY_STEPS = ['Secrets', 'DBConnectionSecrets', 'TransportURLSecret', 'Config'];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The exposition's samples (comment lines left out). */
const samplesOf = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not an exposition line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
      return { name: match[1]!, labels, value: Number(match[3]) };
    });

/** The one sample of `name` whose labels are exactly `labels`, or undefined. */
const sampleOf = (samples: readonly Sample[], name: string, labels: Record<string, string>): number | undefined =>
  samples.find((s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

const stepsTimed = (samples: readonly Sample[]): string[] =>
  samples.filter((s) => s.name === 'nova_operator_reconcile_duration_seconds_count' && s.value > 0).map((s) => s.labels.sub_reconciler!);

/** A 127.0.0.1 port nothing listens on (bound, then released). */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

describe('e2e: the nova_operator_* series on /metrics after real passes of the example Nova (issue 27)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane;

  const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
    const response = await fetch(`${plane.url}/metrics`);
    expect(response.status).to.equal(200);
    const text = await response.text();
    return { text, samples: samplesOf(text) };
  };
  /** Scrapes until `probe` holds for the samples; answers the last scrape. */
  const scrapeUntil = (what: string, probe: (samples: Sample[]) => boolean, timeoutMs = 15_000) =>
    until(what, async () => {
      const scraped = await scrape();
      return probe(scraped.samples) && scraped;
    }, timeoutMs, 100);
  /** Where the embedded default's config store keeps this Nova's configs (src/nova/config/local.ts). */
  const configDir = () => join(dir, 'nova', 'default', NOVA);

  before(async () => {
    sim = await startSimulator({ clock: 'real' });
    dir = mkdtempSync(join(tmpdir(), 'regent-nova-metrics-'));
    // env {}: no PATH, so no nova-manage is found whatever this host has (the Database step cannot run Jobs)
    plane = await startControlPlane(planeOptions(dir, sim, { env: {} }));
    expect(new URL(plane.url).hostname).to.equal('127.0.0.1');
    await until('leadership', async () => plane.isLeader(), 10_000);
  });
  after(async () => {
    await plane?.stop();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('1. without its Secrets the lane ends at the Secrets step: only Secrets is timed, and the six series are exposed', async () => {
    await applyManifests(plane.source, EXAMPLE);
    const { text, samples } = await scrapeUntil('a Secrets step timed', (s) => (sampleOf(s, 'nova_operator_reconcile_duration_seconds_count', { sub_reconciler: 'Secrets' }) ?? 0) >= 1);
    for (const name of NOVA_METRIC_NAMES) {
      expect(text, name).to.match(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(text, name).to.match(new RegExp(`^# TYPE ${name} (counter|histogram)$`, 'm'));
    }
    expect(stepsTimed(samples), 'the lane ended at the Secrets step').to.deep.equal(['Secrets']);
    expect(samples.filter((s) => s.name.startsWith('nova_operator_reconcile_duration_seconds') && s.labels.sub_reconciler !== 'Secrets'), 'no step past Secrets has a series').to.deep.equal([]);
    // a wait is not an error: the error series exists at 0 under the condition the step reports
    expect(sampleOf(samples, 'nova_operator_reconcile_errors_total', { sub_reconciler: 'Secrets', condition_type: 'SecretsReady' })).to.equal(0);
    expect(samples.filter((s) => s.name === 'nova_operator_reconcile_errors_total').map((s) => s.labels.sub_reconciler)).to.deep.equal(['Secrets']);
    const status = (await plane.source.get('Nova', 'default', NOVA))?.status as { conditions?: Array<{ type: string; reason: string }> } | undefined;
    expect(status?.conditions?.find((c) => c.type === 'SecretsReady')?.reason).to.equal('WaitingForDBCredentials');
  });

  it('2 and 3. its Secrets put: DBConnectionSecrets, TransportURLSecret and Config timed under their own sub_reconciler; a Config step that throws is counted under SecretsReady; unblocked, the lane runs on to the Database step', async () => {
    // the Config step's publish will fail: a plain file where this Nova's config directory goes
    expect(existsSync(configDir()), 'nothing was published before the Secrets').to.equal(false);
    mkdirSync(join(dir, 'nova', 'default'), { recursive: true });
    writeFileSync(configDir(), 'not a directory\n');

    const secrets: Record<string, Record<string, string>> = {
      'nova-api-db': { username: 'nova_api', password: 'api-s3cret-value' },
      'nova-db': { username: 'nova', password: 'cell-s3cret-value' },
      'nova-service-user': { password: 'svc-s3cret-value' },
      'nova-metadata-secret': { 'shared-secret': 'metadata-s3cret-value' },
      'rabbitmq-rabbitmq': { url: 'rabbit://nova:mq-s3cret-value@127.0.0.1:5672/' },
      // the address the DSNs name; nothing listens there, so provisioning says ClusterNotReady
      'mariadb-mariadb': { host: '127.0.0.1', port: String(await closedPort()), adminUser: 'root', adminPassword: 'admin-s3cret-value' },
    };
    for (const [name, data] of Object.entries(secrets)) await plane.source.secrets.put('default', name, data);
    // a Secret wakes no Nova (its own requeue is 15 s): a spec edit wakes it now
    await applyManifests(plane.source, EXAMPLE.replace('replicas: 2', 'replicas: 3'));

    const failed = await scrapeUntil('the Config step counted as failed', (s) => (sampleOf(s, 'nova_operator_reconcile_errors_total', { sub_reconciler: 'Config', condition_type: 'SecretsReady' }) ?? 0) >= 1);
    expect(stepsTimed(failed.samples), 'the lane ended at the Config step').to.have.members(['Secrets', 'DBConnectionSecrets', 'TransportURLSecret', 'Config']);
    for (const step of ['DBConnectionSecrets', 'TransportURLSecret']) {
      expect(sampleOf(failed.samples, 'nova_operator_reconcile_errors_total', { sub_reconciler: step, condition_type: 'SecretsReady' }), `${step} continued`).to.equal(0);
    }
    // no series of these steps under a label of their own condition: the four share SecretsReady
    expect(failed.samples.filter((s) => s.name === 'nova_operator_reconcile_errors_total' && SECRETS_READY_STEPS.includes(s.labels.sub_reconciler!) && s.labels.condition_type !== 'SecretsReady')).to.deep.equal([]);

    // unblocked: the next pass (the error's backoff) publishes the config and runs on to the Database step
    rmSync(configDir());
    const ran = await scrapeUntil('the Database step timed', (s) => (sampleOf(s, 'nova_operator_reconcile_duration_seconds_count', { sub_reconciler: 'Database' }) ?? 0) >= 1);
    expect(stepsTimed(ran.samples), 'the lane ended at the Database step').to.have.members(['Secrets', 'DBConnectionSecrets', 'TransportURLSecret', 'Config', 'ComputeConfig', 'SecretsAvailable', 'Database']);
    for (const step of STEPS.slice(STEPS.indexOf('Database') + 1)) expect(sampleOf(ran.samples, 'nova_operator_reconcile_duration_seconds_count', { sub_reconciler: step }), step).to.equal(undefined);
    const errors = Object.fromEntries(ran.samples.filter((s) => s.name === 'nova_operator_reconcile_errors_total').map((s) => [`${s.labels.sub_reconciler}/${s.labels.condition_type}`, s.value]));
    const configErrors = errors['Config/SecretsReady']!;
    expect(configErrors, 'the Config failures stay counted').to.be.at.least(1);
    expect(errors).to.deep.equal({
      'Secrets/SecretsReady': 0,
      'DBConnectionSecrets/SecretsReady': 0,
      'TransportURLSecret/SecretsReady': 0,
      'Config/SecretsReady': configErrors,
      'ComputeConfig/ComputeConfigReady': 0,
      'SecretsAvailable/SecretsReady': 0,
      // ClusterNotReady is a wait (30 s requeue), not an error
      'Database/DatabaseReady': 0,
    });
    const status = (await plane.source.get('Nova', 'default', NOVA))?.status as { conditions?: Array<{ type: string; reason: string }> } | undefined;
    expect(status?.conditions?.find((c) => c.type === 'DatabaseReady')?.reason).to.equal('ClusterNotReady');
  });

  it('4. deleted: the finalizer releases and no series labelled nova="nova" remains (vacuous here: no Job ran, so none was created)', async () => {
    const before = await scrape();
    expect(before.samples.filter((s) => s.labels.nova === NOVA), 'no per-CR series without a Job').to.deep.equal([]);
    await plane.source.delete('Nova', 'default', NOVA);
    await until('the Nova gone', async () => (await plane.source.get('Nova', 'default', NOVA)) === undefined, 15_000, 100);
    const after = await scrape();
    expect(after.samples.filter((s) => s.labels.nova === NOVA)).to.deep.equal([]);
    // the pipeline series are not per CR: they stay
    expect(sampleOf(after.samples, 'nova_operator_reconcile_duration_seconds_count', { sub_reconciler: 'Database' })).to.be.at.least(1);
  });
});
