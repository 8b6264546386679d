/**
 * Kubernetes Events for the Nova's Database and DBArchive decisions (nova-operator.md: "a failed Job keeps the
 * phase with a Warning", the Normal event of an upgrade's start, CellsReportUnavailable, DBArchiveJobFailed).
 * Only a stored decision with a notable outcome records one, so polling emits none. The event store is the
 * record; Events are a courtesy and expire.
 */
import { contextOf, type Decision } from '../../engine/engine.js';
import type { EventType, ResourceSource } from '../../kube/port.js';
import type { Logger } from '../../log/logger.js';
import { describeError } from '../../log/logger.js';
import type { Nova } from '../../resources/nova.js';
import { novaUpgradeDefinition } from '../../../machines/nova-upgrade.js';
import { novaDBArchiveDefinition } from '../../../machines/nova-db-archive.js';

/** What a decision is worth telling an operator: [type, reason, message], or undefined. */
export const novaEventOf = (decision: Decision): [EventType, string, string] | undefined => {
  if (!decision.changed || !decision.outcome) return undefined;
  if (decision.definition.id === 'novaDBArchive') {
    const c = contextOf(novaDBArchiveDefinition, decision.snapshot);
    return decision.outcome === 'runFailed' && c.condition ? ['Warning', 'DBArchiveJobFailed', c.condition.message] : undefined;
  }
  const c = contextOf(novaUpgradeDefinition, decision.snapshot);
  const message = c.condition?.message ?? '';
  switch (decision.outcome) {
    case 'upgradeStarted':
      return ['Normal', 'UpgradeStarted', message];
    case 'upgradeRefused':
    case 'imageReleaseMismatch':
    case 'targetChanged':
    case 'syncFailed':
    case 'expandFailed':
    case 'migrateFailed':
    case 'contractFailed':
      return ['Warning', c.condition?.reason ?? decision.outcome, message];
    case 'contracted':
      return ['Normal', 'UpgradeCompleted', message];
    case 'aborted':
      return ['Normal', 'UpgradeAborted', message];
    case 'synced':
      return c.reportUnavailable ? ['Normal', 'CellsReportUnavailable', `${c.reportUnavailable}; status.cells is kept as it was`] : undefined;
    default:
      return undefined;
  }
};

export const recordNovaEvents = async (source: ResourceSource, nova: Nova, decisions: readonly Decision[], logger: Logger): Promise<void> => {
  for (const decision of decisions) {
    const event = novaEventOf(decision);
    if (!event) continue;
    try {
      await source.recordEvent(nova as never, ...event);
    } catch (error) {
      logger.debug('could not record a Kubernetes event', describeError(error));
    }
  }
};
