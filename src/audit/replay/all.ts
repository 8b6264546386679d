/**
 * `regent replay --all`: re-decide every stored history with a candidate machine and report, per
 * stream, the first divergent event (expected = recorded, actual = recomputed; state and effects).
 * A CI gate before shipping a machine change: any divergence or unreadable event fails it.
 *
 * Streams are verified one at a time, each read page by page (verifyStream), so the whole store is
 * never in memory.
 */
import type { EventStore } from '../../store/port.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import type { MachineRegistry } from '../../../machines/registry.js';
import { verifyStream, type Divergence } from '../../engine/replay.js';

export interface StreamReplay {
  stream: string;
  machine: string;
  version: number | undefined;
  status: 'ok' | 'diverged' | 'quarantined' | 'skipped';
  checked: number;
  divergence: Divergence | undefined;
  /** Why skipped, or the quarantine problem. */
  note: string | undefined;
}

export interface AllReplayReport {
  candidate: string;
  category: string | undefined;
  streams: StreamReplay[];
  events: number;
  diverged: number;
  quarantined: number;
  skipped: number;
}

/** How the candidate is named: a registered version number, a module's definitions, or the current ones. */
export type Candidate = { kind: 'current' } | { kind: 'version'; version: number } | { kind: 'module'; path: string; definitions: MachineDefinition[] };

/** `server-rebuild` or `server-rebuild-` (a stream category) or a machine id (`serverRebuild`) → stream prefixes. */
export const categoryPrefixes = (registry: MachineRegistry, category: string | undefined): string[] | undefined => {
  if (category === undefined) return undefined;
  const machine = registry.current().find((d) => d.id === category);
  if (machine) return [machine.streamPrefix];
  return [category.endsWith('-') ? category : `${category}-`];
};

const describeCandidate = (candidate: Candidate): string =>
  candidate.kind === 'current' ? 'current machines' : candidate.kind === 'version' ? `version ${candidate.version}` : `${candidate.definitions.map((d) => `${d.id} v${d.version}`).join(', ')} from ${candidate.path}`;

export const replayAll = async (store: EventStore, registry: MachineRegistry, candidate: Candidate, category?: string): Promise<AllReplayReport> => {
  const prefixes = categoryPrefixes(registry, category);
  const infos = await store.listStreams(prefixes ? { streamPrefixes: prefixes } : undefined);
  const report: AllReplayReport = { candidate: describeCandidate(candidate), category, streams: [], events: 0, diverged: 0, quarantined: 0, skipped: 0 };
  for (const info of infos) {
    let owner: MachineDefinition;
    try {
      owner = registry.forStream(info.stream);
    } catch {
      report.skipped++;
      report.streams.push({ stream: info.stream, machine: '?', version: undefined, status: 'skipped', checked: 0, divergence: undefined, note: 'no registered machine owns this stream' });
      continue;
    }
    let definition: MachineDefinition | undefined = owner;
    if (candidate.kind === 'version') definition = registry.list().find((d) => d.id === owner.id && d.version === candidate.version);
    if (candidate.kind === 'module') definition = candidate.definitions.find((d) => d.id === owner.id);
    if (!definition) {
      report.skipped++;
      report.streams.push({ stream: info.stream, machine: owner.id, version: undefined, status: 'skipped', checked: 0, divergence: undefined, note: `the candidate has no version of ${owner.id}` });
      continue;
    }
    const verified = await verifyStream(store, registry, info.stream, { definition });
    report.events += verified.checked;
    const status: StreamReplay['status'] = verified.quarantined ? 'quarantined' : verified.divergence ? 'diverged' : 'ok';
    if (status === 'diverged') report.diverged++;
    if (status === 'quarantined') report.quarantined++;
    report.streams.push({ stream: info.stream, machine: definition.id, version: definition.version, status, checked: verified.checked, divergence: verified.divergence, note: verified.quarantined?.message });
  }
  return report;
};
