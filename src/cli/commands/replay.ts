/** `regent replay <stream> [--at <revision|ISO time>] [--verify]`. */
import type { Command } from 'commander';
import { buildRegistry, loadMachineModule, openExistingStore, type GlobalOptions } from '../context.js';
import { formatState } from '../format.js';
import { replayAt, verifyStream, type ReplayPoint } from '../../engine/replay.js';
import { UsageError } from '../errors.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import type { MachineRegistry } from '../../../machines/registry.js';

/** `12` → revision 12; an ISO-8601 time → that instant. Anything else is a usage error. */
export const parseReplayPoint = (at: string | undefined): ReplayPoint => {
  if (at === undefined) return undefined;
  if (/^\d+$/.test(at)) return { revision: Number(at) };
  if (/^\d{4}-\d{2}-\d{2}/.test(at) && !Number.isNaN(Date.parse(at))) return { time: new Date(at) };
  throw new UsageError(`--at ${JSON.stringify(at)} is neither a revision number nor an ISO time (e.g. 2026-11-29T10:00:00Z)`);
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

export const registerReplay = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('replay <stream>')
    .description("rebuild a stream's state at a revision or time; --verify re-decides every event and reports the first divergence")
    .option('--at <revision|time>', 'a revision number or an ISO-8601 time')
    .option('--verify', 're-decide every recorded event and report the first divergence (exit 3 on divergence)')
    .option('--machine-version <version|module>', 'replay with this registered version or a module exporting a candidate machine')
    .option('--json', 'print JSON')
    .action(async (stream: string, options: { at?: string; verify?: boolean; machineVersion?: string; json?: boolean }) => {
      const at = parseReplayPoint(options.at);
      const store = await openExistingStore(globals());
      try {
        if ((await store.streamHead(stream)) === undefined) throw new UsageError(`no stream ${stream} in ${store.description}`);
        const registry = await buildRegistry(globals());
        const definition = await resolveCandidate(registry, options.machineVersion, stream);
        if (options.verify) {
          const report = await verifyStream(store, registry, stream, { definition });
          if (options.json) console.log(JSON.stringify({ ...report, quarantined: report.quarantined?.message }, null, 2));
          else if (report.quarantined) console.log(`quarantined: ${report.quarantined.message}`);
          else if (!report.divergence) console.log(`${stream}: ${report.checked} events re-decided by ${report.machine} v${report.machineVersion}: no divergence`);
          else {
            const d = report.divergence;
            console.log(`${stream}: first divergence at revision ${d.revision} (${d.type}, event ${d.eventId}): ${d.reason}`);
            console.log(`  recorded:   to ${formatState(d.expected.to)}  effects ${JSON.stringify(d.expected.effects)}`);
            console.log(`  recomputed: to ${formatState(d.actual.to)}  effects ${JSON.stringify(d.actual.effects)}`);
          }
          if (report.divergence || report.quarantined) process.exitCode = 3;
          return;
        }
        const state = await replayAt(store, registry, stream, at, { definition });
        const view = {
          stream,
          machine: `${state.definition.id} v${state.definition.version}`,
          at: state.last ? { revision: state.last.revision, recordedAt: state.last.metadata.recordedAt, type: state.last.type } : null,
          state: state.snapshot.value,
          context: state.snapshot.context,
          lastObservation: state.lastObservation ? { revision: state.lastObservation.revision, recordedAt: state.lastObservation.metadata.recordedAt, stimulus: state.lastObservation.data } : null,
          lastDecision: state.lastDecision ? { revision: state.lastDecision.revision, recordedAt: state.lastDecision.metadata.recordedAt, type: state.lastDecision.type, effects: state.lastDecision.metadata.effects } : null,
        };
        if (options.json) return void console.log(JSON.stringify(view, null, 2));
        console.log(`${stream} (${view.machine})`);
        console.log(`  as of:            ${view.at ? `revision ${view.at.revision} ${view.at.type} at ${view.at.recordedAt}` : 'before the first event'}`);
        console.log(`  state:            ${formatState(state.snapshot.value)}`);
        console.log(`  context:          ${JSON.stringify(view.context)}`);
        console.log(`  last observation: ${view.lastObservation ? `revision ${view.lastObservation.revision} ${JSON.stringify(view.lastObservation.stimulus)}` : 'none'}`);
        console.log(`  last decision:    ${view.lastDecision ? `revision ${view.lastDecision.revision} ${view.lastDecision.type} effects ${JSON.stringify(view.lastDecision.effects)}` : 'none'}`);
      } finally {
        await store.close();
      }
    });
