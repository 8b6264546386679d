/** `regent history server-rebuild-<id>` after a real rebuild: every step, with its source. */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGES, startRebuildRig } from './rebuild-harness.js';
import { openStore } from '../../src/store/open.js';

describe('e2e: rebuild history on the command line', function () {
  this.timeout(30_000);

  it('shows arm, submit, accept, the monitor advances and the clear, each with its source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-history-'));
    const db = join(dir, 'regent.db');
    const store = await openStore(`sqlite:${db}`);
    const rig = await startRebuildRig({ store });
    try {
      const id = await rig.createServer('web-history');
      await rig.poll();
      await rig.pass(id, IMAGES.B);
      await rig.pass(id, IMAGES.B);
      await rig.poll();
      rig.advance(1_500);
      await rig.poll();
      await rig.pass(id, IMAGES.B);
      await store.close();
      const result = spawnSync(process.execPath, ['bin/regent.js', '--store', `sqlite:${db}`, 'history', `server-rebuild-${id}`], { encoding: 'utf8' });
      expect(result.status).to.equal(0);
      const rows = result.stdout.trim().split('\n').slice(1).map((line) => line.split(/\s{2,}/));
      expect(rows.map((r) => [r[2], r[3]])).to.deep.equal([
        ['serverRebuild.observed', 'monitor'],
        ['serverRebuild.armed', 'reconciler'],
        ['serverRebuild.submitted', 'reconciler'],
        ['serverRebuild.accepted', 'effect'],
        ['serverRebuild.observed', 'monitor'],
        ['serverRebuild.observedSucceeded', 'monitor'],
        ['serverRebuild.cleared', 'reconciler'],
      ]);
      expect(rows[2]?.[5]).to.equal('nova.rebuild');
      expect(rows[1]?.[4]).to.equal('noMarker → Initiated');
    } finally {
      await rig.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
