/** The cancel scope's one signal is listened on by every request in flight: no listener-limit warning, at any count. */
import { expect } from 'chai';
import { CancelScope } from '../../src/openstack/cancel.js';

const warningsWhile = async (act: () => void): Promise<string[]> => {
  const seen: string[] = [];
  const onWarning = (w: Error) => seen.push(w.name);
  process.on('warning', onWarning);
  try {
    act();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
};

describe('CancelScope', () => {
  it('50 concurrent requests listening on the signal raise no MaxListenersExceededWarning, also after a renewed term', async () => {
    const scope = new CancelScope();
    const listen = () => {
      for (let i = 0; i < 50; i++) scope.signal.addEventListener('abort', () => undefined);
    };
    expect(await warningsWhile(listen)).to.not.include('MaxListenersExceededWarning');
    scope.cancel('lost the lease');
    expect(scope.signal.aborted).to.equal(true);
    scope.renew();
    expect(scope.signal.aborted).to.equal(false);
    expect(await warningsWhile(listen)).to.not.include('MaxListenersExceededWarning');
  });
});
