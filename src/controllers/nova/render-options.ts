/**
 * What the Nova controller's passes and its effect handlers must agree on: which Nova a stream belongs to, the
 * rendered roles, and how a Job is rendered — the config the Config step handed the Database step in the last pass,
 * so the hash a pass decides on is the hash the effect renders (an effect rendering another config finds another
 * hash, creates nothing, and the next pass decides again: after a restart, before the first pass, that is the case).
 */
import type { Nova } from '../../resources/nova.js';
import type { NovaJob } from '../../../machines/nova-upgrade.js';
import type { JobConfig, NovaRef, RenderOptions } from '../../nova/jobs/render.js';
import { UPGRADE_ROLE_ORDER } from '../../nova/workloads/port.js';
import type { NovaControllerDeps } from './deps.js';

/** Novas by uid, so effect handlers (keyed by stream) find the object a decision was about. */
const known = new Map<string, NovaRef>();
/** The config the last pass of each Nova (by uid) handed its Jobs. */
const configs = new Map<string, JobConfig>();

export const rememberNova = (ref: NovaRef): void => void known.set(ref.uid, ref);
export const rememberConfig = (ref: NovaRef, config: JobConfig): void => void configs.set(ref.uid, { name: config.name, files: config.files });
export const novaOfStream = (stream: string): NovaRef | undefined => known.get(stream.replace(/^nova-(database|db-archive|pipeline|finalizer)-/, ''));

/**
 * How the pass and the effects render a Nova's Jobs: the caller's options, the TLS directories of this Nova's runner
 * (the DSN Secrets name the same ones), and the config of the last pass. One function for both.
 */
export const novaRenderOptions = (deps: Pick<NovaControllerDeps, 'jobs' | 'renderOptions'>, ref: NovaRef, job?: NovaJob): RenderOptions => {
  const config = configs.get(ref.uid);
  return {
    ...(job === undefined ? {} : (deps.renderOptions?.(ref, job) ?? {})),
    databaseTlsDir: (block) => deps.jobs.databaseTlsDir(ref.namespace, ref.name, block),
    ...(config ? { config } : {}),
  };
};

/** The rendered roles in rollout order: the console proxy only while enabled. */
export const renderedRoles = (nova: Nova) => UPGRADE_ROLE_ORDER.filter((role) => role !== 'novncproxy' || nova.spec.consoleProxy?.enabled === true);
