/**
 * The static checks as a serving process answers them (issue 30, "Fast and linked"): a machine page never waits
 * for an exploration (16 s for serverRebuild on a busy 2-core machine). A report is
 *   - known: explored by this process, or read from the shelf (history/shelf.ts) where an earlier process kept
 *     it, so a restarted server answers at once;
 *   - running: being explored cooperatively (explore.ts runCooperatively, an unref'd pause between slices), and
 *     said to be so — never shown as passed;
 *   - failed: the exploration threw (a machine whose transition throws), with the message.
 *
 * A kept report is trusted only under its key: format, machine id and version, and a fingerprint of everything
 * the report is a function of — the machine's config and guard/action source (history/checkpoint.ts
 * machineFingerprint), its effects and their renaming, its audit profile (the hooks' source and the alphabet
 * itself) and the checker's own source (rules.ts checkerSource). The key is written inside the file too, so a
 * file that is torn, of another format or another machine (a foreign file under the same name) is ignored and
 * the machine explored again. The shelf is a cache: deleting it is always safe.
 */
import { createHash } from 'node:crypto';
import type { MachineDefinition } from '../../../machines/definition.js';
import { machineFingerprint } from '../history/checkpoint.js';
import type { CheckpointShelf } from '../history/shelf.js';
import { auditOf } from '../profile.js';
import { CHECK_IDS, checkMachineCooperatively, checkerSource, type CheckResult, type MachineCheckReport } from './rules.js';

/** Bump when MachineCheckReport's shape changes: older kept reports are then ignored, never misread. */
export const CHECKS_FORMAT = 1;

const withSource = (value: unknown): string => JSON.stringify(value ?? null, (_key, v: unknown) => (typeof v === 'function' ? `fn:${String(v)}` : v));

const fingerprints = new WeakMap<MachineDefinition, string>();

/** A hash of everything a machine's check report is a function of (the header above). */
export const checksFingerprint = (definition: MachineDefinition): string => {
  const known = fingerprints.get(definition);
  if (known) return known;
  const audit = auditOf(definition);
  const text = withSource({
    machine: machineFingerprint(definition),
    streamPrefix: definition.streamPrefix,
    input: definition.input,
    effects: definition.effects,
    effectNames: definition.effectNames,
    destructiveEffects: definition.destructiveEffects,
    audit: audit ? { hooks: audit, alphabet: audit.alphabet() } : null,
    checker: checkerSource(),
  });
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
  fingerprints.set(definition, digest);
  return digest;
};

export const checksKey = (definition: MachineDefinition): string => `checks|v${CHECKS_FORMAT}|${definition.id}@${definition.version}|${checksFingerprint(definition)}`;

export const serializeChecks = (key: string, report: MachineCheckReport): string => JSON.stringify({ format: CHECKS_FORMAT, key, report });

const STATUSES = new Set(['pass', 'fail', 'skipped']);
const isResult = (r: Partial<CheckResult> | null): boolean =>
  r !== null && typeof r === 'object' && CHECK_IDS.includes(r.id as never) && STATUSES.has(r.status as string) && typeof r.title === 'string' && typeof r.detail === 'string' && typeof r.violations === 'number';

/** The report back from its text, or undefined unless this format wrote it under `key` for this machine. */
export const parseChecks = (text: string, key: string, definition: MachineDefinition): MachineCheckReport | undefined => {
  let parsed: { format?: unknown; key?: unknown; report?: Partial<MachineCheckReport> };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return undefined;
  }
  const report = parsed?.report;
  if (parsed?.format !== CHECKS_FORMAT || parsed.key !== key || !report || report.machine !== definition.id || report.version !== definition.version) return undefined;
  if (typeof report.states !== 'number' || typeof report.edges !== 'number' || !Array.isArray(report.results) || report.results.length === 0 || !report.results.every(isResult)) return undefined;
  return report as MachineCheckReport;
};

export type ChecksState = { status: 'done'; report: MachineCheckReport } | { status: 'running' } | { status: 'failed'; error: string };

export interface MachineChecks {
  /**
   * What a page shows now: the report when this process knows it or the shelf keeps it (one read), else
   * `running` — and the exploration is started (one per machine version, shared). Never waits for it.
   */
  state(definition: MachineDefinition): Promise<ChecksState>;
  /** The report, waiting for the exploration when it is not known. */
  report(definition: MachineDefinition): Promise<MachineCheckReport>;
  /** Checks each definition in turn (the shelf first), in the background; resolves when all are known or failed. */
  warm(definitions: readonly MachineDefinition[]): Promise<void>;
}

export const createMachineChecks = (options: { shelf?: CheckpointShelf | undefined } = {}): MachineChecks => {
  const { shelf } = options;
  const known = new Map<string, MachineCheckReport>();
  const failed = new Map<string, string>();
  const pending = new Map<string, { shelved: Promise<unknown>; done: Promise<MachineCheckReport> }>();

  const begin = (definition: MachineDefinition) => {
    const key = checksKey(definition);
    const inFlight = pending.get(key);
    if (inFlight) return inFlight;
    const shelved = (async () => {
      const text = await shelf?.read(key).catch(() => undefined);
      const kept = text === undefined ? undefined : parseChecks(text, key, definition);
      if (kept) known.set(key, kept);
      return kept;
    })();
    const done = (async () => {
      try {
        const kept = await shelved;
        if (kept) return kept;
        const report = await checkMachineCooperatively(definition, { background: true });
        known.set(key, report);
        await shelf?.write(key, serializeChecks(key, report)).catch(() => undefined); // not kept: explored again after a restart
        return report;
      } catch (error) {
        failed.set(key, error instanceof Error ? error.message : String(error));
        throw error;
      } finally {
        pending.delete(key);
      }
    })();
    done.catch(() => undefined); // a page that does not wait for it reads the failure from `failed`
    const entry = { shelved, done };
    pending.set(key, entry);
    return entry;
  };

  const state = async (definition: MachineDefinition): Promise<ChecksState> => {
    const key = checksKey(definition);
    const report = known.get(key);
    if (report) return { status: 'done', report };
    const error = failed.get(key);
    if (error !== undefined) return { status: 'failed', error };
    await begin(definition).shelved;
    const kept = known.get(key);
    return kept ? { status: 'done', report: kept } : { status: 'running' };
  };

  return {
    state,
    report: async (definition) => known.get(checksKey(definition)) ?? begin(definition).done,
    warm: async (definitions) => {
      for (const definition of definitions) {
        const key = checksKey(definition);
        if (known.has(key) || failed.has(key)) continue;
        await begin(definition).done.catch(() => undefined);
      }
    },
  };
};
