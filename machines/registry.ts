/**
 * A registry of machine definitions: which machine owns a stream, and which version decides it.
 * Several versions of one machine may be registered (replay against a candidate version); the
 * highest version decides new events.
 */
import type { MachineDefinition } from './definition.js';

export class UnknownMachine extends Error {
  override readonly name = 'UnknownMachine';
}

export class MachineRegistry {
  private readonly byId = new Map<string, MachineDefinition[]>();

  constructor(definitions: readonly MachineDefinition[] = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: MachineDefinition): this {
    const versions = this.byId.get(definition.id) ?? [];
    if (versions.some((d) => d.version === definition.version)) {
      throw new Error(`machine ${definition.id} v${definition.version} is registered twice`);
    }
    for (const [id, others] of this.byId) {
      const other = others[0];
      if (id !== definition.id && other && (other.streamPrefix.startsWith(definition.streamPrefix) || definition.streamPrefix.startsWith(other.streamPrefix))) {
        throw new Error(`machines ${id} and ${definition.id} claim overlapping stream prefixes`);
      }
    }
    versions.push(definition);
    versions.sort((a, b) => b.version - a.version);
    this.byId.set(definition.id, versions);
    return this;
  }

  /** The current (highest) version, or a specific one. */
  get(id: string, version?: number): MachineDefinition {
    const versions = this.byId.get(id);
    const found = version === undefined ? versions?.[0] : versions?.find((d) => d.version === version);
    if (!found) {
      const known = [...this.byId.keys()].join(', ') || 'none';
      throw new UnknownMachine(`no machine ${id}${version === undefined ? '' : ` v${version}`} (known: ${known})`);
    }
    return found;
  }

  /** The current definition owning a stream, by prefix. */
  forStream(stream: string): MachineDefinition {
    for (const versions of this.byId.values()) {
      const current = versions[0];
      if (current && stream.startsWith(current.streamPrefix)) return current;
    }
    throw new UnknownMachine(`no machine owns stream ${stream}`);
  }

  /** Every id with its versions, current first. */
  list(): MachineDefinition[] {
    return [...this.byId.values()].flat();
  }

  current(): MachineDefinition[] {
    return [...this.byId.values()].map((v) => v[0]).filter((d): d is MachineDefinition => d !== undefined);
  }
}
