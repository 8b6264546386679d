/**
 * Opening an evidence file for `regent replay --file`: verify its hash chain, find the machine version
 * it names in the registry, and load its events into an in-memory store so every replay tool (verify,
 * --at, --step) runs on it unchanged, offline.
 */
import { readFile } from 'node:fs/promises';
import { MemoryEventStore } from '../../store/memory.js';
import type { NewEvent } from '../../events/envelope.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import { UnknownMachine, type MachineRegistry } from '../../../machines/registry.js';
import { canonicalJson } from './canonical.js';
import { evidenceMachine, verifyEvidenceChain, type ChainCheck, type EvidenceFile } from './evidence.js';

export class InvalidEvidence extends Error {
  override readonly name = 'InvalidEvidence';
}

export interface OpenedEvidence {
  file: EvidenceFile;
  chain: ChainCheck;
  store: MemoryEventStore;
  definition: MachineDefinition;
  /** False when the registered version draws a different statechart than the file records. */
  sameStatechart: boolean;
}

export const readEvidence = async (path: string): Promise<EvidenceFile> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidEvidence(`cannot read evidence file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const file = JSON.parse(text) as EvidenceFile;
    if (!file || typeof file !== 'object' || !Array.isArray(file.events) || !file.machine || !file.chain) throw new Error('missing events, machine or chain');
    return file;
  } catch (error) {
    throw new InvalidEvidence(`${path} is not a Regent evidence file: ${(error as Error).message}`);
  }
};

/**
 * Verifies the chain first (a tampered file is reported as tampered, whatever else is wrong with it),
 * then finds the machine version and loads the events. `loaded` is undefined when the chain is broken.
 */
export const openEvidence = async (path: string, registry: MachineRegistry, candidate?: MachineDefinition): Promise<{ file: EvidenceFile; chain: ChainCheck; loaded: OpenedEvidence | undefined }> => {
  const file = await readEvidence(path);
  const chain = verifyEvidenceChain(file);
  return { file, chain, loaded: chain.ok ? await loadEvidence(path, file, chain, registry, candidate) : undefined };
};

const loadEvidence = async (path: string, file: EvidenceFile, chain: ChainCheck, registry: MachineRegistry, candidate?: MachineDefinition): Promise<OpenedEvidence> => {
  const known = registry.list().filter((d) => d.id === file.machine.id);
  const named = known.find((d) => d.version === file.machine.version);
  const definition = candidate ?? named;
  if (!definition) {
    const have = known.length > 0 ? `this build has ${known.map((d) => `v${d.version}`).join(', ')}` : 'this build has no such machine';
    throw new UnknownMachine(`${path} was exported with ${file.machine.id} v${file.machine.version}, which is not registered (${have}); load it with --machines <module>`);
  }
  const sameStatechart = canonicalJson(evidenceMachine(definition).statechart) === canonicalJson(file.machine.statechart);
  const store = new MemoryEventStore();
  for (let i = 0; i < file.events.length; i += 1000) {
    const batch: NewEvent[] = file.events.slice(i, i + 1000).map(({ id, type, data, metadata }) => ({ id, type, data, metadata }));
    await store.append(file.stream, batch, { expectedRevision: i === 0 ? 'no_stream' : i - 1 });
  }
  return { file, chain, store, definition, sameStatechart };
};
