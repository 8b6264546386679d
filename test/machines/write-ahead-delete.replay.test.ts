/**
 * Replay of stored histories across the write-ahead delete's extraction (issue 25): events the machines stored
 * before machines/write-ahead-delete.ts existed (fixtures/write-ahead-delete-history.json.gz, written by the
 * generator next to it) are re-decided by today's machines exactly as `regent replay --verify` does (`verifyStream`:
 * the same `to` and the same effects for every event, none ignored), and fold to the very snapshot they folded to
 * then. A refactor that changed a decision, an effect's params or a context field would fail here, without a version
 * bump to say so.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createProductRegistry } from '../../machines/index.js';
import type { NewEvent, StateValue } from '../../src/events/envelope.js';
import { replayAt, verifyStream } from '../../src/engine/replay.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import type { Histories } from './fixtures/write-ahead-delete-history.js';

const histories = JSON.parse(gunzipSync(readFileSync(new URL('./fixtures/write-ahead-delete-history.json.gz', import.meta.url))).toString('utf8')) as Histories;
const registry = createProductRegistry();

describe('write-ahead delete: histories stored before the fragment replay unchanged', () => {
  for (const [machine, { stimuli, streams }] of Object.entries(histories)) {
    it(`${machine}: every stored event re-decides to the same state and effects, and each stream folds to its recorded snapshot`, async () => {
      const definition = registry.get(machine);
      const store = new MemoryEventStore();
      let checked = 0;
      for (const history of streams) {
        let from: StateValue | null = null;
        const events: NewEvent[] = history.events.map((e, i) => {
          const data = stimuli[e.data];
          if (!data) throw new Error(`fixture ${machine} ${history.stream}: no stimulus ${e.data}`);
          const event: NewEvent = {
            id: `${history.stream}-${i}`,
            type: e.type,
            data,
            metadata: {
              machine: definition.id,
              machineVersion: definition.version,
              schemaVersion: definition.schemaVersion,
              source: data.source,
              actor: 'fixture',
              correlationId: history.stream,
              causationId: null,
              from,
              to: e.metadata.to as StateValue,
              effects: e.metadata.effects as NewEvent['metadata']['effects'],
              recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
            },
          };
          from = event.metadata.to;
          return event;
        });
        await store.append(history.stream, events, { expectedRevision: 'no_stream' });
        const report = await verifyStream(store, registry, history.stream);
        expect(report.quarantined, history.stream).to.equal(undefined);
        expect(report.divergence, `${history.stream}: ${JSON.stringify(report.divergence)}`).to.equal(undefined);
        expect(report.checked).to.equal(events.length);
        checked += report.checked;
        const state = await replayAt(store, registry, history.stream);
        expect(state.snapshot.value, history.stream).to.deep.equal(history.final.value);
        expect(JSON.parse(JSON.stringify(state.snapshot.context)), history.stream).to.deep.equal(history.final.context);
      }
      // the histories are not trivial: every machine went through deletions
      expect(checked).to.be.greaterThan(150);
      expect(streams.some((h) => h.events.some((e) => (e.metadata.effects as Array<{ type: string }>).some((x) => definition.destructiveEffects?.includes(x.type))))).to.equal(true);
    });
  }
});
