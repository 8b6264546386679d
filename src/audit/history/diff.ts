/** The structural diff the compare view shows (issue 18); it lives in src/events so the resource streams use it too. */
export { structuralDiff, type Change } from '../../events/structural-diff.js';
