/**
 * The cells report — nova-operator.md, "The cells sequence" (the paragraph on the termination log). The db-sync
 * Job's last step writes one `<name>=<uuid>` line per mapped cell to its termination log; status.cells is built
 * from it, because nova generates a cell's UUID at map time and this report is the only place it can be read
 * back from.
 *
 * Two decisions live here, both pure:
 * - `reportPod`: which of the Job's pods to read (the one that succeeded, else the newest; only pods of this Job's
 *   UID, so a pod an earlier Job of the same name left behind is never read);
 * - `parseCellsReport`: which lines are cells (stray nova-manage output on the same stream is dropped).
 */

/** The cell line grammar, verbatim from the spec. */
export const CELL_LINE = /^([A-Za-z0-9_-]+)=([0-9a-f-]{36})$/;

export interface CellReportEntry {
  name: string;
  uuid: string;
}

/**
 * Every line matched against CELL_LINE; anything else (warnings, blank lines, a truncated last line) is dropped.
 * A trailing CR is tolerated. Order is kept. A name given twice (two cells mapped under one name — the very
 * duplicate the guard exists to prevent, but possible in a brownfield table) is reported once: at the position of
 * its first line, with the UUID of its last line, so the report stays one entry per name and its order stable.
 */
export function parseCellsReport(text: string): CellReportEntry[] {
  const byName = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const m = CELL_LINE.exec(line);
    if (m) byName.set(m[1]!, m[2]!);
  }
  return [...byName].map(([name, uuid]) => ({ name, uuid }));
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

/** The few fields of a pod the report choice reads. */
export interface ReportPod {
  uid: string;
  labels: Readonly<Record<string, string>>;
  phase: PodPhase;
  /** RFC 3339, as the API server writes metadata.creationTimestamp. */
  creationTimestamp: string;
  /** The container's termination message, when it wrote one. */
  terminationMessage?: string;
}

/** The Job controller labels its pods with the Job's UID under both keys (the legacy one and the batch one). */
export const CONTROLLER_UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'] as const;

function belongsTo(pod: ReportPod, jobUid: string): boolean {
  // An empty UID names no Job: a pod with an empty label must not match a Job whose UID was never read.
  return jobUid !== '' && CONTROLLER_UID_LABELS.some((k) => pod.labels[k] === jobUid);
}

/** An unparseable timestamp sorts as the oldest, so it never wins over a pod whose age is known. */
function createdAt(pod: ReportPod): number {
  const t = Date.parse(pod.creationTimestamp);
  return Number.isNaN(t) ? -Infinity : t;
}

/** The newest pod; on equal timestamps the one listed first (the choice must be deterministic, not meaningful). */
function newest(pods: readonly ReportPod[]): ReportPod | undefined {
  let best: ReportPod | undefined;
  for (const p of pods) if (!best || createdAt(p) > createdAt(best)) best = p;
  return best;
}

/**
 * The pod whose termination message is the Job's report: among the pods carrying the Job's UID, the one that
 * succeeded (a failed attempt wrote no report; should several have succeeded, the newest), else the newest of
 * them; undefined when no pod carries the UID.
 */
export function reportPod(pods: readonly ReportPod[], jobUid: string): ReportPod | undefined {
  const own = pods.filter((p) => belongsTo(p, jobUid));
  return newest(own.filter((p) => p.phase === 'Succeeded')) ?? newest(own);
}
