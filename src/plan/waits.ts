/**
 * What a machine waits for after a decision, in words: the meaning of the state the decision leaves it in. A plan
 * stops a branch where the next decision depends on something that has not happened — an effect's answer, the cloud
 * settling, a later pass — and says which, rather than guessing what comes after.
 *
 * Keyed by machine and outcome; a decision not listed falls back to what its pass's disposition said (the next pass
 * and when, or that nothing follows).
 */
export const WAITS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  serverRebuild: {
    armed: 'the next pass reads the marker back; it submits the rebuild if Nova shows the server quiescent and still on the old image',
    rearmed: 'the next pass reads the new marker back; it submits the rebuild if Nova shows the server quiescent',
    submitted: "after Nova accepts the rebuild: waits for task_state to clear",
    resubmittedOnEvidence: "after Nova accepts the rebuild: waits for task_state to clear",
    acceptanceRecorded: 'waits for task_state to clear (the monitor observes the rebuild settle)',
    rebuildInProgress: 'waits for task_state to clear (the monitor observes the rebuild settle)',
    deferred: "waits for the server's first boot (launched_at)",
    foreignTaskBusy: "waits for the task that holds the server to finish",
    refUnreadable: "waits for Nova's image ref to be readable",
    failureStamped: 'the next pass reads the failure back and parks',
    parked: 'waits for a new image or a replacement (user action)',
    awaitingEvidence: 'waits for evidence whether the unanswered rebuild took effect',
    outcomeUnresolvable: 'waits for an operator: no evidence can settle the unanswered rebuild',
    waiting: 'waits for the rebuild to settle',
    cleared: 'nothing: the server is on the desired image',
    inSync: 'nothing: the server is on the desired image',
  },
  serverLifecycle: {
    createSubmitted: 'after Nova accepts the create: waits for the server to become ACTIVE',
    createResubmitted: 'after Nova accepts the create: waits for the server to become ACTIVE',
    recreateSubmitted: 'after Nova accepts the create: waits for the server to become ACTIVE',
    deleteArmed: 'the next pass reads the deletion back and deletes the server it observes then',
    recreateArmed: 'the next pass reads the intent back and deletes the errored server if it is still in ERROR',
    deleteSubmitted: 'after Nova accepts the delete: waits for the server to be gone',
    deleteResubmitted: 'after Nova accepts the delete: waits for the server to be gone',
    recreateDeleteSubmitted: 'after Nova accepts the delete: waits for the server to be gone, then creates it again',
    desiredUnresolvable: 'looks again in 30 s; nothing else happens until the image or flavor resolves to exactly one',
    specRejected: 'waits for a valid spec',
  },
  volumeAttachment: {
    attachRequested: "after Nova accepts the attach: waits for Cinder's attachment to show it",
    detachRequested: "after Nova accepts the detach: waits for Cinder's attachment to be gone",
  },
};

/** The wait after a decision, or undefined when this table does not know it. */
export const waitAfter = (machine: string, outcome: string): string | undefined => WAITS[machine]?.[outcome];
