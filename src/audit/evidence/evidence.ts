/**
 * Evidence files: one stream's history, self-contained and tamper-evident, for incident review away
 * from the control plane (`regent export`, then `regent replay --file`).
 *
 * The file holds the machine (id, version, description, effects, the statechart as JSON and DOT),
 * the events (redacted), and a SHA-256 hash chain:
 *   genesis  = sha256(canonical JSON of {format, stream, machine})   — binds the machine description
 *   link[i]  = sha256(link[i-1] || canonical JSON of events[i])       — link[-1] = genesis
 *   head     = link[n-1] (genesis for an empty stream)
 * Verification recomputes every link and names the first that differs.
 */
import { open } from 'node:fs/promises';
import type { RecordedEvent } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import { streamEvents } from '../../engine/pages.js';
import { statechartOfDefinition, type Statechart } from '../graph/statechart.js';
import { toDot } from '../graph/dot.js';
import { canonicalJson, nextLink, sha256 } from './canonical.js';
import { redact, REDACTED, SECRET_KEY, SECRET_VALUE } from './redact.js';

export const EVIDENCE_FORMAT = 'regent-evidence/1';

export interface EvidenceMachine {
  id: string;
  version: number;
  schemaVersion: number;
  streamPrefix: string;
  description: string;
  effects: string[];
  destructiveEffects: string[];
  statechart: Statechart;
  dot: string;
}

export interface EvidenceFile {
  format: typeof EVIDENCE_FORMAT;
  exportedAt: string;
  stream: string;
  machine: EvidenceMachine;
  /** Machine versions that recorded the events (the file names one to replay with). */
  recordedByVersions: number[];
  redaction: { marker: string; keyPattern: string; valuePattern: string; paths: Array<{ revision: number; path: string }> };
  events: RecordedEvent[];
  chain: { algorithm: 'sha256'; genesis: string; links: string[]; head: string };
}

export const evidenceMachine = (definition: MachineDefinition): EvidenceMachine => {
  const statechart = statechartOfDefinition(definition);
  return {
    id: definition.id,
    version: definition.version,
    schemaVersion: definition.schemaVersion,
    streamPrefix: definition.streamPrefix,
    description: definition.description,
    effects: [...definition.effects],
    destructiveEffects: [...(definition.destructiveEffects ?? [])],
    statechart,
    dot: toDot(statechart),
  };
};

export const genesisOf = (stream: string, machine: EvidenceMachine): string => sha256(canonicalJson({ format: EVIDENCE_FORMAT, stream, machine }));

/**
 * Writes the evidence file for `stream`, reading the stream page by page and writing each event as
 * it is read (a 100,000-event history is never held in memory whole). Returns what it wrote.
 */
export const exportEvidence = async (
  store: EventStore,
  stream: string,
  definition: MachineDefinition,
  out: string,
  now: () => Date = () => new Date(),
): Promise<{ events: number; head: string; redacted: number; versions: number[] }> => {
  const machine = evidenceMachine(definition);
  const genesis = genesisOf(stream, machine);
  const links: string[] = [];
  const paths: Array<{ revision: number; path: string }> = [];
  const versions = new Set<number>();
  const file = await open(out, 'w');
  try {
    const header = { format: EVIDENCE_FORMAT, exportedAt: now().toISOString(), stream, machine };
    await file.write(`${JSON.stringify(header, null, 1).slice(0, -2)},\n"events": [\n`);
    let link = genesis;
    for await (const event of streamEvents(store, stream)) {
      const { value, paths: removed } = redact({ id: event.id, stream: event.stream, revision: event.revision, position: event.position, type: event.type, data: event.data, metadata: event.metadata });
      for (const path of removed) paths.push({ revision: event.revision, path });
      versions.add(event.metadata.machineVersion);
      link = nextLink(link, value);
      links.push(link);
      await file.write(`${links.length > 1 ? ',\n' : ''}${JSON.stringify(value)}`);
    }
    const tail = {
      recordedByVersions: [...versions].sort((a, b) => a - b),
      redaction: { marker: REDACTED, keyPattern: SECRET_KEY.source, valuePattern: SECRET_VALUE.source, paths },
      chain: { algorithm: 'sha256', genesis, links, head: link },
    };
    await file.write(`\n],\n${JSON.stringify(tail, null, 1).slice(1)}\n`);
    return { events: links.length, head: link, redacted: paths.length, versions: tail.recordedByVersions };
  } finally {
    await file.close();
  }
};

export interface ChainCheck {
  ok: boolean;
  events: number;
  /** The first link that does not match (index into events), with what was recorded and recomputed. */
  brokenAt: { link: number; revision: number | undefined; eventId: string | undefined; recorded: string | undefined; recomputed: string } | undefined;
  problems: string[];
}

/** Recomputes the hash chain of an evidence file. */
export const verifyEvidenceChain = (file: EvidenceFile): ChainCheck => {
  const problems: string[] = [];
  if (file.format !== EVIDENCE_FORMAT) problems.push(`format ${JSON.stringify(file.format)} is not ${EVIDENCE_FORMAT}`);
  const events = Array.isArray(file.events) ? file.events : [];
  const links = Array.isArray(file.chain?.links) ? file.chain.links : [];
  const genesis = genesisOf(file.stream, file.machine);
  let brokenAt: ChainCheck['brokenAt'];
  if (genesis !== file.chain?.genesis) {
    problems.push('the header (stream or machine) does not match the chain genesis: it was altered after export');
    brokenAt = { link: -1, revision: undefined, eventId: undefined, recorded: file.chain?.genesis, recomputed: genesis };
  }
  let link = file.chain?.genesis ?? genesis;
  for (let i = 0; i < Math.max(events.length, links.length); i++) {
    const event = events[i];
    const recomputed = event === undefined ? '(no event)' : nextLink(link, event);
    if (!brokenAt && recomputed !== links[i]) {
      brokenAt = { link: i, revision: event?.revision, eventId: event?.id, recorded: links[i], recomputed };
      problems.push(`hash chain broken at link ${i}${event ? ` (revision ${event.revision}, event ${event.id})` : ''}: recorded ${links[i]?.slice(0, 16) ?? 'nothing'}…, recomputed ${recomputed.slice(0, 16)}…`);
    }
    // Continue from the recorded link so a single altered event is named once, not every link after it.
    link = links[i] ?? recomputed;
    if (event && (event.revision !== i || event.stream !== file.stream)) problems.push(`event ${i} is ${event.stream}@${event.revision}, expected ${file.stream}@${i}`);
  }
  const head = links[links.length - 1] ?? file.chain?.genesis;
  if (file.chain?.head !== head) problems.push(`chain head ${String(file.chain?.head).slice(0, 16)}… is not the last link`);
  return { ok: problems.length === 0, events: events.length, brokenAt, problems };
};
