/** REGENT_NOVA_PORT_RANGE (src/app/nova-runtime.ts novaPortRange): the embedded roles' loopback ports, or a clear error. */
import { expect } from 'chai';
import { novaPortRange } from '../../src/app/nova-runtime.js';

describe('REGENT_NOVA_PORT_RANGE', () => {
  it('unset or empty: the default range (undefined here); <low>-<high> within 1024-65535 is taken as it is', () => {
    expect(novaPortRange({})).to.equal(undefined);
    expect(novaPortRange({ REGENT_NOVA_PORT_RANGE: '' })).to.equal(undefined);
    expect(novaPortRange({ REGENT_NOVA_PORT_RANGE: '30000-30399' })).to.deep.equal([30000, 30399]);
    expect(novaPortRange({ REGENT_NOVA_PORT_RANGE: ' 2000-2000 ' })).to.deep.equal([2000, 2000]);
  });

  it('anything else is refused, naming the value: reversed, outside 1024-65535, not two numbers', () => {
    for (const bad of ['30399-30000', '80-1000', '60000-70000', '30000', 'a-b', '30000-30399,31000-31010']) {
      expect(() => novaPortRange({ REGENT_NOVA_PORT_RANGE: bad }), bad).to.throw(`REGENT_NOVA_PORT_RANGE=${JSON.stringify(bad)} is not <low>-<high> within 1024-65535`);
    }
  });
});
