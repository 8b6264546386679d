/** status.volumes rows (projections/server-volumes.ts): what was asked for and what the guest got (issue 24, item 5). */
import { expect } from 'chai';
import { renderServerVolumes } from '../../projections/server-volumes.js';

describe('server volumes in status', () => {
  it('an attached row shows the device asked for and the one Nova reports, each under its own name', () => {
    const view = renderServerVolumes([{ name: 'data-1', listed: true, requestedDevice: '/dev/vdb', exists: true, attachment: { state: 'Attached', device: '/dev/sdb' } as never }]);
    expect(view.rows).to.deep.equal([{ volumeID: 'data-1', device: '/dev/sdb', requestedDevice: '/dev/vdb', state: 'Attached' }]);
  });
  it('before the attach only the request is known: no device is invented', () => {
    const view = renderServerVolumes([{ name: 'data-1', listed: true, requestedDevice: '/dev/vdb', exists: true, attachment: undefined }]);
    expect(view.rows).to.deep.equal([{ volumeID: 'data-1', requestedDevice: '/dev/vdb', state: 'Attaching' }]);
  });
  it('a spec that asks for no device: the row shows only what the guest got', () => {
    const view = renderServerVolumes([{ name: 'data-1', listed: true, exists: true, attachment: { state: 'Attached', device: '/dev/vdc' } as never }]);
    expect(view.rows).to.deep.equal([{ volumeID: 'data-1', device: '/dev/vdc', state: 'Attached' }]);
  });
});
