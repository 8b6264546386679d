/**
 * The embedded default's ConfigPort: each config a directory of its own, named by its content.
 *
 *   <dir>/<namespace>/<nova>/
 *     <nova>-config-<hash>/   the files (0644; the directory 0755): written into a temporary directory beside it,
 *                             then renamed into place, so a reader sees all of a config or none of it
 *     published.json          the published configs, most recent first: "newest" for the history rule, and the
 *                             fallback's answer when no live API is known
 *     state/, locks/          [DEFAULT] state_path and [oslo_concurrency] lock_path of the local roles (0700)
 *
 * `current` asks the `liveConfig` hook (the local workloads know which config their API process runs) and, without
 * one, answers the most recently published config: the last one that rendered, which is what a restarted API would
 * mount. A directory whose files do not hash to its name is not answered (a hand edit, a torn copy).
 *
 * Nothing secret is written here (src/nova/config/env.ts), so the files are world-readable like /etc/nova's.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NovaRef } from '../jobs/render.js';
import { CONFIG_HISTORY, ConfigStoreError, type ConfigPort, type PublishResult } from './port.js';
import { configHash, configNamePattern, type RenderedConfig } from './render.js';
import { writeConfigDirectory } from './directory.js';
import { NOVA_PORTS, podSettings, type NovaConfigSettings } from './settings.js';

export interface LocalConfigStoreOptions {
  /** The root (e.g. `<dataDir>/nova`); created when missing. */
  readonly dir: string;
  /** The settings the local roles run with, over the local defaults (loopback, the spec's ports, dirs under `dir`). */
  readonly settings?: Partial<NovaConfigSettings>;
  /** The config the live API process mounts, when the local workloads know it. */
  readonly liveConfig?: (namespace: string, nova: string) => Promise<string | undefined>;
  readonly now?: () => Date;
}

interface Published {
  name: string;
  at: string;
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const FILE_NAME = /^[A-Za-z0-9._-]{1,253}$/;
const PUBLISHED = 'published.json';

const checkName = (what: string, name: string): void => {
  if (!NAME.test(name) || name.includes('..')) throw new ConfigStoreError(`${what} ${JSON.stringify(name)} is not a DNS-1123 name`, 422);
};

export class LocalConfigStore implements ConfigPort {
  private readonly root: string;
  private readonly now: () => Date;

  constructor(private readonly options: LocalConfigStoreOptions) {
    this.root = resolve(options.dir);
    this.now = options.now ?? (() => new Date());
    mkdirSync(this.root, { recursive: true, mode: 0o755 });
  }

  /** The Nova's directory. */
  novaDir(namespace: string, nova: string): string {
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    return join(this.root, namespace, nova);
  }

  /** Where a config's files are. */
  configDir(namespace: string, nova: string, name: string): string {
    if (!configNamePattern(nova).test(name)) throw new ConfigStoreError(`${JSON.stringify(name)} is not a config name of Nova ${nova}`, 422);
    return join(this.novaDir(namespace, nova), name);
  }

  settings(namespace: string, nova: string): NovaConfigSettings {
    const base = this.novaDir(namespace, nova);
    return podSettings({ listenHost: '127.0.0.1', ports: NOVA_PORTS, statePath: join(base, 'state'), lockPath: join(base, 'locks'), messagingCAFile: join(base, 'messaging-tls', 'ca.crt'), ...this.options.settings });
  }

  async publish(nova: NovaRef, config: RenderedConfig): Promise<PublishResult> {
    const base = this.novaDir(nova.namespace, nova.name);
    const target = this.configDir(nova.namespace, nova.name, config.name);
    for (const file of Object.keys(config.files)) {
      if (!FILE_NAME.test(file) || file === '.' || file === '..') throw new ConfigStoreError(`config ${config.name}: ${JSON.stringify(file)} is not a plain file name`, 422);
    }
    mkdirSync(base, { recursive: true, mode: 0o755 });
    for (const dir of ['state', 'locks']) mkdirSync(join(base, dir), { recursive: true, mode: 0o700 });
    const created = !existsSync(target) && writeConfigDirectory(target, config.files, (code) => new ConfigStoreError(`cannot write config ${config.name} (${code})`));
    const published = this.published(base);
    if (published[0]?.name !== config.name) {
      this.writePublished(base, [{ name: config.name, at: this.now().toISOString() }, ...published.filter((p) => p.name !== config.name)]);
    }
    return { created, pruned: await this.prune(nova, base) };
  }

  async current(namespace: string, nova: string): Promise<RenderedConfig | undefined> {
    const base = this.novaDir(namespace, nova);
    const name = this.options.liveConfig ? await this.options.liveConfig(namespace, nova) : this.published(base)[0]?.name;
    if (name === undefined || !configNamePattern(nova).test(name)) return undefined;
    const dir = join(base, name);
    if (!existsSync(dir)) return undefined;
    const files = Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((file) => [file, readFileSync(join(dir, file), 'utf8')] as const),
    );
    const hash = configHash(files);
    return name.endsWith(`-config-${hash}`) ? { name, hash, files } : undefined;
  }


  private published(base: string): Published[] {
    try {
      const parsed = JSON.parse(readFileSync(join(base, PUBLISHED), 'utf8')) as { published?: Published[] };
      return Array.isArray(parsed.published) ? parsed.published : [];
    } catch {
      return [];
    }
  }

  private writePublished(base: string, published: Published[]): void {
    const temporary = join(base, `${PUBLISHED}.${process.pid}.${randomUUID()}.tmp`);
    writeFileSync(temporary, `${JSON.stringify({ published }, null, 2)}\n`, { mode: 0o644 });
    renameSync(temporary, join(base, PUBLISHED));
  }

  /** The three most recently published and the live one stay; every other config directory of the Nova goes. */
  private async prune(nova: NovaRef, base: string): Promise<string[]> {
    const published = this.published(base);
    const live = this.options.liveConfig ? await this.options.liveConfig(nova.namespace, nova.name) : undefined;
    const keep = new Set([...published.slice(0, CONFIG_HISTORY).map((p) => p.name), ...(live ? [live] : [])]);
    const pattern = configNamePattern(nova.name);
    const pruned = readdirSync(base)
      .filter((entry) => pattern.test(entry) && !keep.has(entry))
      .sort();
    for (const name of pruned) rmSync(join(base, name), { recursive: true, force: true });
    if (published.some((p) => !keep.has(p.name))) this.writePublished(base, published.filter((p) => keep.has(p.name)));
    return pruned;
  }
}
