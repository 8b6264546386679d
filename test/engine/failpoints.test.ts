/**
 * Failpoints (src/engine/failpoints.ts): the REGENT_FAILPOINTS parser, the firing rules (Nth hit, seeded
 * probability, stream prefixes), and a real process that kills itself at a point, naming it on stderr.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { FailpointState, parseFailpoints, parseFailpointRule } from '../../src/engine/failpoints.js';

describe('engine failpoints', () => {
  it('is inert when the variable is unset or empty', () => {
    expect(parseFailpoints(undefined)).to.equal(undefined);
    expect(parseFailpoints('  ')).to.equal(undefined);
  });

  it('parses probabilities, @N, a seed and stream prefixes', () => {
    expect(parseFailpoints('appended-before-effect=0.05;seed=42')).to.deep.equal({ rules: { 'appended-before-effect': { kind: 'probability', p: 0.05 } }, seed: 42, streamPrefixes: [] });
    expect(parseFailpoints('decided-before-append=@3; effect-answered-before-result=1 ;streams=server-rebuild-,volume-')).to.deep.equal({
      rules: { 'decided-before-append': { kind: 'nth', n: 3 }, 'effect-answered-before-result': { kind: 'probability', p: 1 } },
      seed: 1,
      streamPrefixes: ['server-rebuild-', 'volume-'],
    });
  });

  it('refuses unknown points and bad values (a typo must not pass as "no chaos")', () => {
    expect(() => parseFailpoints('appended-before-efect=0.1')).to.throw(/unknown failpoint/);
    expect(() => parseFailpointRule('1.5')).to.throw(/probability/);
    expect(() => parseFailpointRule('@0')).to.throw(/@N/);
    expect(() => parseFailpointRule('')).to.throw();
    expect(() => parseFailpoints('seed=abc')).to.throw(/seed/);
    expect(() => parseFailpoints('decided-before-append')).to.throw(/name=value/);
  });

  it('@N fires at exactly the Nth hit of that point', () => {
    const state = new FailpointState(parseFailpoints('appended-before-effect=@3')!);
    const fired = [1, 2, 3, 4, 5].map(() => state.hit('appended-before-effect', 's').fires);
    expect(fired).to.deep.equal([false, false, true, false, false]);
    expect(state.hit('decided-before-append', 's').fires, 'an unarmed point never fires').to.equal(false);
  });

  it('probabilities are deterministic from the seed, and 0 / 1 never / always fire', () => {
    const run = (seed: number) => {
      const state = new FailpointState(parseFailpoints(`decided-before-append=0.3;seed=${seed}`)!);
      return Array.from({ length: 200 }, () => state.hit('decided-before-append', 's').fires);
    };
    expect(run(7)).to.deep.equal(run(7));
    expect(run(7)).to.not.deep.equal(run(8));
    const rate = run(7).filter(Boolean).length / 200;
    expect(rate).to.be.within(0.15, 0.45);
    const never = new FailpointState(parseFailpoints('decided-before-append=0')!);
    const always = new FailpointState(parseFailpoints('decided-before-append=1')!);
    expect(Array.from({ length: 50 }, () => never.hit('decided-before-append', 's').fires).some(Boolean)).to.equal(false);
    expect(Array.from({ length: 50 }, () => always.hit('decided-before-append', 's').fires).every(Boolean)).to.equal(true);
  });

  it('with stream prefixes, only hits on those streams count', () => {
    const state = new FailpointState(parseFailpoints('appended-before-effect=@2;streams=volume-')!);
    expect(state.hit('appended-before-effect', 'server-rebuild-x')).to.deep.equal({ fires: false, count: 0 });
    expect(state.hit('appended-before-effect', 'volume-lifecycle-a').fires).to.equal(false);
    expect(state.hit('appended-before-effect', 'server-lifecycle-a').fires).to.equal(false);
    expect(state.hit('appended-before-effect', 'volume-lifecycle-a')).to.deep.equal({ fires: true, count: 2 });
  });

  it('a process whose point fires prints one line naming the point and the stream, and dies by SIGKILL', function () {
    this.timeout(30_000);
    const script = "import { failpoint } from './src/engine/failpoints.ts'; failpoint('decided-before-append', 'toy-1'); failpoint('decided-before-append', 'toy-2'); console.log('survived');";
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, REGENT_FAILPOINTS: 'decided-before-append=@2' }, encoding: 'utf8' });
    expect(child.signal).to.equal('SIGKILL');
    expect(child.stderr.trim()).to.equal('failpoint decided-before-append fired on toy-2 (hit 2)');
    expect(child.stdout).to.not.include('survived');
    const inert = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, REGENT_FAILPOINTS: '' }, encoding: 'utf8' });
    expect(inert.status).to.equal(0);
    expect(inert.stdout.trim()).to.equal('survived');
  });
});
