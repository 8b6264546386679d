/**
 * `regent replay`: incident review.
 *
 *   replay <stream> [--at <revision|time>]           the state then, what it knew and what it had decided
 *   replay <stream> --verify [--machine-version v]   re-decide every event; first divergence (exit 3)
 *   replay <stream> --step                           step through the history in the terminal
 *   replay --all [--category c] --machine-version v  re-decide every stored history (CI gate, exit 3)
 *   replay --file evidence.json [--at|--step]        verify an exported file's hash chain and replay it offline
 */
import type { Command } from 'commander';
import { buildRegistry, loadMachineModule, openExistingStore, type GlobalOptions } from '../context.js';
import { formatState, table } from '../format.js';
import { outsideHistory, replayAt, verifyStream, type Divergence, type ReplayPoint } from '../../engine/replay.js';
import { UsageError } from '../errors.js';
import type { EventStore } from '../../store/port.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import type { MachineRegistry } from '../../../machines/registry.js';
import { replayAll, type AllReplayReport, type Candidate } from '../../audit/replay/all.js';
import { ReplayCursor } from '../../audit/replay/cursor.js';
import { revisionAtTime, stepInteractively } from '../../audit/replay/step.js';
import { openEvidence } from '../../audit/evidence/open.js';
import { isApiServerStream } from '../../audit/history/api-streams.js';
import { resolveStreamName } from '../stream-alias.js';

/** `12` → revision 12; an ISO-8601 time → that instant. Anything else is a usage error. */
export const parseReplayPoint = (at: string | undefined): ReplayPoint => {
  if (at === undefined) return undefined;
  if (/^\d+$/.test(at)) return { revision: Number(at) };
  if (/^\d{4}-\d{2}-\d{2}/.test(at) && !Number.isNaN(Date.parse(at))) return { time: new Date(at) };
  throw new UsageError(`--at ${JSON.stringify(at)} is neither a revision number nor an ISO time (e.g. 2026-11-29T10:00:00Z)`);
};

/** `--at` parsed and checked against the stream: a point outside its history is a usage error naming the bounds. */
const replayPointIn = async (store: EventStore, stream: string, at: string | undefined): Promise<ReplayPoint> => {
  const point = parseReplayPoint(at);
  const outside = await outsideHistory(store, stream, point);
  if (outside !== undefined) throw new UsageError(`--at ${at}: ${outside}`);
  return point;
};

/** A candidate machine: `<id>@<version>` from the registry, or a module path exporting definitions. */
export const resolveCandidate = async (registry: MachineRegistry, candidate: string | undefined, stream: string): Promise<MachineDefinition | undefined> => {
  if (candidate === undefined) return undefined;
  const owner = registry.forStream(stream);
  if (/^\d+$/.test(candidate)) return registry.get(owner.id, Number(candidate));
  const definitions = await loadMachineModule(candidate);
  const match = definitions.find((d) => d.id === owner.id);
  if (!match) throw new UsageError(`${candidate} has no version of machine ${owner.id}`);
  return match;
};

interface ReplayOptions {
  at?: string;
  verify?: boolean;
  machineVersion?: string;
  json?: boolean;
  step?: boolean;
  all?: boolean;
  category?: string;
  file?: string;
}

const printDivergence = (stream: string, d: Divergence) => {
  console.log(`${stream}: first divergence at revision ${d.revision} (${d.type}, event ${d.eventId}): ${d.reason}`);
  console.log(`  recorded:   to ${formatState(d.expected.to)}  effects ${JSON.stringify(d.expected.effects)}`);
  console.log(`  recomputed: to ${formatState(d.actual.to)}  effects ${JSON.stringify(d.actual.effects)}`);
};

const stateView = (stream: string, state: Awaited<ReturnType<typeof replayAt>>) => ({
  stream,
  machine: `${state.definition.id} v${state.definition.version}`,
  at: state.last ? { revision: state.last.revision, recordedAt: state.last.metadata.recordedAt, type: state.last.type } : null,
  state: state.snapshot.value,
  context: state.snapshot.context,
  lastObservation: state.lastObservation ? { revision: state.lastObservation.revision, recordedAt: state.lastObservation.metadata.recordedAt, stimulus: state.lastObservation.data } : null,
  lastDecision: state.lastDecision ? { revision: state.lastDecision.revision, recordedAt: state.lastDecision.metadata.recordedAt, type: state.lastDecision.type, effects: state.lastDecision.metadata.effects } : null,
});

/** Verify, step, or show the state at a point: one stream, on any store (the real one or an evidence file's). */
const replayOne = async (store: EventStore, registry: MachineRegistry, stream: string, definition: MachineDefinition | undefined, options: ReplayOptions): Promise<number> => {
  const at = await replayPointIn(store, stream, options.at);
  if (options.step) {
    const cursor = new ReplayCursor(store, stream, definition ?? registry.forStream(stream));
    const start = at === undefined ? 0 : 'revision' in at ? at.revision : await revisionAtTime(store, stream, at.time);
    await stepInteractively(cursor, store, { input: process.stdin, output: process.stdout, start });
    return 0;
  }
  if (options.verify) {
    const report = await verifyStream(store, registry, stream, { definition });
    if (options.json) console.log(JSON.stringify({ ...report, quarantined: report.quarantined?.message }, null, 2));
    else if (report.quarantined) console.log(`quarantined: ${report.quarantined.message}`);
    else if (!report.divergence) console.log(`${stream}: ${report.checked} events re-decided by ${report.machine} v${report.machineVersion}: no divergence`);
    else printDivergence(stream, report.divergence);
    return report.divergence || report.quarantined ? 3 : 0;
  }
  const state = await replayAt(store, registry, stream, at, { definition });
  const view = stateView(stream, state);
  if (options.json) {
    console.log(JSON.stringify(view, null, 2));
    return 0;
  }
  console.log(`${stream} (${view.machine})`);
  console.log(`  as of:            ${view.at ? `revision ${view.at.revision} ${view.at.type} at ${view.at.recordedAt}` : 'before the first event'}`);
  console.log(`  state:            ${formatState(state.snapshot.value)}`);
  console.log(`  context:          ${JSON.stringify(view.context)}`);
  console.log(`  last observation: ${view.lastObservation ? `revision ${view.lastObservation.revision} ${JSON.stringify(view.lastObservation.stimulus)}` : 'none'}`);
  console.log(`  last decision:    ${view.lastDecision ? `revision ${view.lastDecision.revision} ${view.lastDecision.type} effects ${JSON.stringify(view.lastDecision.effects)}` : 'none'}`);
  return 0;
};

const parseCandidate = async (value: string | undefined): Promise<Candidate> => {
  if (value === undefined) return { kind: 'current' };
  if (/^\d+$/.test(value)) return { kind: 'version', version: Number(value) };
  return { kind: 'module', path: value, definitions: await loadMachineModule(value) };
};

const printAll = (report: AllReplayReport) => {
  console.log(`replayed ${report.streams.length} stream(s), ${report.events} event(s) against ${report.candidate}${report.category ? ` (category ${report.category})` : ''}`);
  if (report.streams.length === 0) return;
  const rows = [['STREAM', 'MACHINE', 'EVENTS', 'RESULT', 'REV', 'EVENT', 'EXPECTED (recorded)', 'ACTUAL (recomputed)']];
  for (const s of report.streams) {
    const d = s.divergence;
    rows.push([
      s.stream,
      s.version === undefined ? s.machine : `${s.machine} v${s.version}`,
      String(s.checked),
      s.status === 'diverged' ? `diverged: ${d?.reason}` : s.status,
      d ? String(d.revision) : '',
      d ? d.type : (s.note ?? ''),
      d ? `${formatState(d.expected.to)} ${d.expected.effects.map((e) => e.type).join(',') || '-'}` : '',
      d ? `${formatState(d.actual.to)} ${d.actual.effects.map((e) => e.type).join(',') || '-'}` : '',
    ]);
  }
  console.log(table(rows));
  for (const s of report.streams) {
    if (!s.divergence) continue;
    console.log('');
    printDivergence(s.stream, s.divergence);
  }
  console.log(`\n${report.diverged} diverged, ${report.quarantined} quarantined, ${report.skipped} skipped, ${report.streams.length - report.diverged - report.quarantined - report.skipped} reproduced`);
};

/** `--file`: verify the chain, re-decide with the version the file names, then show the state (or step). */
const replayEvidence = async (path: string, stream: string | undefined, options: ReplayOptions, registry: MachineRegistry): Promise<number> => {
  const candidate = options.machineVersion === undefined ? undefined : await parseCandidate(options.machineVersion);
  const { file, chain, loaded: evidence } = await openEvidence(path, registry, candidate?.kind === 'module' ? candidate.definitions[0] : undefined);
  if (stream !== undefined && stream !== file.stream) throw new UsageError(`${path} holds stream ${file.stream}, not ${stream}`);
  const summary = { file: path, stream: file.stream, events: file.events.length, exportedAt: file.exportedAt, machine: `${file.machine.id} v${file.machine.version}`, recordedByVersions: file.recordedByVersions };
  if (!evidence) {
    if (options.json) console.log(JSON.stringify({ ...summary, chain }, null, 2));
    else {
      console.log(`${path}: stream ${file.stream}, ${file.events.length} events: hash chain BROKEN`);
      for (const problem of chain.problems) console.log(`  ${problem}`);
    }
    return 3;
  }
  // Before any output: a bad --at must not follow half a report.
  const at = await replayPointIn(evidence.store, file.stream, options.at);
  const definition = candidate?.kind === 'version' ? registry.get(file.machine.id, candidate.version) : evidence.definition;
  const verified = await verifyStream(evidence.store, registry, file.stream, { definition });
  const sameChart = evidence.sameStatechart || definition !== evidence.definition;
  if (options.json && !options.step) {
    const state = await replayAt(evidence.store, registry, file.stream, at, { definition });
    console.log(JSON.stringify({ ...summary, chain, replayedWith: `${definition.id} v${definition.version}`, sameStatechart: evidence.sameStatechart, verify: { ...verified, quarantined: verified.quarantined?.message }, state: stateView(file.stream, state) }, null, 2));
    return verified.divergence || verified.quarantined ? 3 : 0;
  }
  console.log(`${path}: stream ${file.stream}, ${file.events.length} events, exported ${file.exportedAt} with ${summary.machine} (recorded by v${file.recordedByVersions.join(', v')})`);
  console.log(`  hash chain: ${chain.events} links verified, head ${file.chain.head}`);
  console.log(`  redacted:   ${file.redaction.paths.length} value(s)`);
  console.log(`  machine:    replaying with ${definition.id} v${definition.version}${sameChart ? '' : ' (WARNING: the registered version draws a different statechart than the file records)'}`);
  if (verified.quarantined) console.log(`  re-decided: quarantined: ${verified.quarantined.message}`);
  else if (verified.divergence) printDivergence(file.stream, verified.divergence);
  else console.log(`  re-decided: ${verified.checked} events, no divergence`);
  const code = await replayOne(evidence.store, registry, file.stream, definition, { ...options, verify: false });
  return verified.divergence || verified.quarantined ? 3 : code;
};

export const registerReplay = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('replay [stream]')
    .description("rebuild a stream's state at a revision or time; --verify re-decides every event and reports the first divergence; --step steps through it; --all gates a candidate machine on every history; --file replays an evidence file offline")
    .option('--at <revision|time>', 'a revision number or an ISO-8601 time')
    .option('--verify', 're-decide every recorded event and report the first divergence (exit 3 on divergence)')
    .option('--machine-version <version|module>', 'replay with this registered version or a module exporting a candidate machine')
    .option('--step', 'step through the history interactively: n(ext), p(rev), j(ump) <rev|time>, f(irst), l(ast), q(uit)')
    .option('--all', 're-decide every stored stream (with --machine-version: against that candidate); exit 3 on any divergence')
    .option('--category <kind>', 'with --all: only streams of this category (stream prefix such as server-rebuild, or a machine id)')
    .option('--file <evidence.json>', 'replay an evidence file from `regent export` offline, after verifying its hash chain')
    .option('--json', 'print JSON')
    .action(async (stream: string | undefined, options: ReplayOptions) => {
      parseReplayPoint(options.at);
      if (options.all) {
        if (stream !== undefined || options.file || options.step || options.at) throw new UsageError('--all replays every stream: give no stream, --file, --step or --at with it');
        const candidate = await parseCandidate(options.machineVersion);
        const store = await openExistingStore(globals());
        try {
          const report = await replayAll(store, await buildRegistry(globals()), candidate, options.category);
          if (options.json) console.log(JSON.stringify(report, null, 2));
          else printAll(report);
          process.exitCode = report.diverged > 0 || report.quarantined > 0 ? 3 : 0;
        } finally {
          await store.close();
        }
        return;
      }
      if (options.category) throw new UsageError('--category only applies to --all');
      if (options.file) {
        process.exitCode = await replayEvidence(options.file, stream, options, await buildRegistry(globals()));
        return;
      }
      if (stream === undefined) throw new UsageError('replay needs a stream (or --all, or --file <evidence.json>)');
      const store = await openExistingStore(globals());
      try {
        // short names and the id the server API returned, as `regent history` takes them (stream-alias.ts)
        const named = await resolveStreamName(store, stream);
        if (named !== stream && !options.json) console.log(`stream ${named}`);
        if ((await store.streamHead(named)) === undefined) throw new UsageError(`no stream ${named} in ${store.description}`);
        if (isApiServerStream(named)) throw new UsageError(`${named} is the server API's record of the calls made for a Server: no machine decides it, so there is nothing to replay (regent history ${named} lists it)`);
        const registry = await buildRegistry(globals());
        const definition = await resolveCandidate(registry, options.machineVersion, named);
        const code = await replayOne(store, registry, named, definition, options);
        if (code !== 0) process.exitCode = code;
      } finally {
        await store.close();
      }
    });
