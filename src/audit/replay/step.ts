/**
 * `regent replay <stream> --step`: step through a history in the terminal. Commands, one per line:
 *   n (or Enter)  next event        p  previous event
 *   j <rev|time>  jump              f / l  first / last event
 *   q             quit
 * Works the same on a pipe (every line is a command), which is how it is tested.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { formatState } from '../../events/state-text.js';
import type { StateValue } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import { streamEvents } from '../../engine/pages.js';
import type { ReplayCursor, ReplayFrame } from './cursor.js';

const compact = (value: unknown, max = 200): string => {
  const text = JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

export const formatFrame = (frame: ReplayFrame, head: number): string => {
  const e = frame.event;
  const lines = [e ? `── revision ${frame.revision} of ${head}  ${e.type}  ${e.metadata.recordedAt}` : `── before the first event (${head + 1} events)`];
  if (e) {
    const m = e.metadata;
    lines.push(`   stimulus:  ${m.source} ${compact(e.data)}`);
    lines.push(`   fired:     ${formatState(m.from)} → ${formatState(m.to)}${m.effects.length ? `   effects ${compact(m.effects)}` : ''}`);
    lines.push(`   actor:     ${m.actor}   correlation ${m.correlationId}${m.causationId ? `   causation ${m.causationId}` : ''}`);
  }
  lines.push(`   state:     ${formatState(frame.snapshot.value as StateValue)}`);
  lines.push(`   context:   ${compact(frame.snapshot.context, 400)}`);
  const o = frame.lastObservation;
  const d = frame.lastDecision;
  lines.push(`   knew:      ${o ? `last observation, revision ${o.revision} at ${o.metadata.recordedAt}: ${compact(o.data)}` : 'no observation yet'}`);
  lines.push(`   decided:   ${d ? `last decision, revision ${d.revision} ${d.type}${d.metadata.effects.length ? ` effects ${compact(d.metadata.effects)}` : ''}` : 'no decision yet'}`);
  return lines.join('\n');
};

/** The revision of the last event recorded at or before `time`, or -1. Reads forwards in pages. */
export const revisionAtTime = async (store: EventStore, stream: string, time: Date): Promise<number> => {
  let found = -1;
  for await (const event of streamEvents(store, stream)) {
    if (Date.parse(event.metadata.recordedAt) > time.getTime()) break;
    found = event.revision;
  }
  return found;
};

export const stepInteractively = async (
  cursor: ReplayCursor,
  store: EventStore,
  io: { input: Readable; output: Writable; start?: number },
): Promise<void> => {
  const write = (text: string) => io.output.write(`${text}\n`);
  const prompt = () => io.output.write('[n]ext [p]rev [j <rev|time>] [f]irst [l]ast [q]uit > ');
  let head = await cursor.head();
  let frame = await cursor.at(io.start ?? 0);
  write(formatFrame(frame, head));
  prompt();
  const lines = createInterface({ input: io.input, terminal: false });
  for await (const raw of lines) {
    const [command = 'n', arg] = raw.trim().split(/\s+/).filter(Boolean);
    head = await cursor.head();
    let target: number | undefined;
    switch (command) {
      case 'n':
      case 'next':
        target = frame.revision + 1;
        break;
      case 'p':
      case 'prev':
        target = frame.revision - 1;
        break;
      case 'f':
      case 'first':
        target = 0;
        break;
      case 'l':
      case 'last':
        target = head;
        break;
      case 'j':
      case 'jump':
        if (arg && /^-?\d+$/.test(arg)) target = Number(arg);
        else if (arg && !Number.isNaN(Date.parse(arg))) target = await revisionAtTime(store, cursor.stream, new Date(arg));
        else write(`   jump needs a revision or an ISO time, e.g. j 12 or j 2026-11-29T10:00:00Z`);
        break;
      case 'q':
      case 'quit':
        lines.close();
        return;
      default:
        write(`   unknown command ${JSON.stringify(command)}`);
    }
    if (target !== undefined) {
      if (target > head) write(`   already at the last event (revision ${head})`);
      else if (target < -1) write('   already before the first event');
      else {
        frame = await cursor.at(target);
        write(formatFrame(frame, head));
      }
    }
    prompt();
  }
};
