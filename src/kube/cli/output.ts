/**
 * Output for `regent get`: a kubectl-style table built from the kind's printer columns (the same
 * columns the CRD declares, so `regent get servers` and `kubectl get servers` agree), or YAML/JSON.
 */
import { stringify } from 'yaml';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { definitionOf } from '../kinds.js';
import type { PrinterColumn } from '../../resources/kind.js';
import { evaluateJsonPath } from './jsonpath.js';

export type OutputFormat = 'table' | 'yaml' | 'json';

export interface TableOptions {
  /** Add a NAMESPACE column first (for listings across namespaces). */
  readonly showNamespace?: boolean;
  /** Also print priority > 0 columns. */
  readonly wide?: boolean;
  /** Columns right after NAME that the CRD does not declare (`regent get servers`' DISPLAY NAME, src/cli/commands/resources.ts). */
  readonly nameColumns?: readonly PrinterColumn[];
  readonly now?: Date;
}

/** kubectl's age: 45s, 12m, 5h, 3d, 2y. */
export const formatAge = (from: string, now: Date = new Date()): string => {
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / 1000));
  if (Number.isNaN(seconds)) return '<unknown>';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  return days < 730 ? `${days}d` : `${Math.floor(days / 365)}y`;
};

const cell = (value: unknown, type: string, now: Date): string => {
  if (value === undefined || value === null) return '';
  if (type === 'date' && typeof value === 'string') return formatAge(value, now);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
};

/** Rows under a header, each column as wide as its widest cell plus three spaces (kubectl's layout). */
export const alignColumns = (header: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3)))
      .join('')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
};

export const formatTable = <K extends KindName>(kind: K, objects: readonly ObjectOf<K>[], options: TableOptions = {}): string => {
  if (objects.length === 0) return 'No resources found.';
  const now = options.now ?? new Date();
  const columns = [...(options.nameColumns ?? []), ...definitionOf(kind).columns.filter((c) => options.wide || (c.priority ?? 0) === 0)];
  // a cluster-scoped kind (a core Node) has no namespace to show, as kubectl prints it
  const showNamespace = options.showNamespace === true && definitionOf(kind).scope !== 'Cluster';
  const header = [...(showNamespace ? ['NAMESPACE'] : []), 'NAME', ...columns.map((c) => c.name.toUpperCase())];
  const rows = objects.map((o) => [
    ...(showNamespace ? [o.metadata.namespace] : []),
    o.metadata.name,
    ...columns.map((c) => cell(evaluateJsonPath(o, c.jsonPath)[0], c.type, now)),
  ]);
  return alignColumns(header, rows);
};

/** One object as itself; several as a kubectl-style `List`. */
const document = (objects: readonly ObjectOf<KindName>[], single: boolean): unknown => (single && objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects });

export const formatObjects = <K extends KindName>(kind: K, objects: readonly ObjectOf<K>[], format: OutputFormat, options: TableOptions & { single?: boolean } = {}): string => {
  switch (format) {
    case 'table':
      return formatTable(kind, objects, options);
    case 'yaml':
      return stringify(document(objects, options.single ?? false)).trimEnd();
    case 'json':
      return JSON.stringify(document(objects, options.single ?? false), null, 2);
  }
};
