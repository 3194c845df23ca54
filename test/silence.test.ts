import { describe, expect, it } from 'vitest';
import { SilenceWatch } from '../suites/silence.js';

/** A watch whose probes are recorded, and answered by the test. */
function watch(inFlight = 0) {
  const probes: number[] = [];
  let lost: Error | undefined;
  const w = new SilenceWatch({
    lostAfter: 3,
    inFlight: () => inFlight,
    probe: async () => {
      probes.push(probes.length);
    },
    onLost: (why) => (lost = new Error(`lost: ${why}`)),
  });
  return { w, probes, lost: () => lost, setInFlight: (n: number) => (inFlight = n) };
}

const state = async (p: Promise<void>) => Promise.race([p.then(() => 'judged', (e: Error) => `dropped: ${e.message}`), new Promise((r) => setTimeout(() => r('held'), 10))]);

describe('SilenceWatch: a request without response is judged only once the target is known alive', () => {
  it('an answer passes straight through', async () => {
    const { w } = watch();
    expect(await state(w.completed(undefined))).toBe('judged');
  });

  it('a silent request is held until another request is answered, then judged', async () => {
    const { w } = watch(1);
    const held = w.completed('timeout');
    expect(await state(held)).toBe('held');
    await w.completed(undefined);
    expect(await state(held)).toBe('judged');
  });

  it('three silent requests in a row: the target is lost, every held one dropped', async () => {
    const { w, lost } = watch(5);
    const first = w.completed('timeout');
    const second = w.completed('timeout');
    await expect(w.completed('timeout')).rejects.toThrow('lost: timeout, 3 requests in a row');
    expect(await state(first)).toBe('dropped: lost: timeout, 3 requests in a row');
    expect(await state(second)).toMatch(/^dropped/);
    expect(lost()).toBeDefined();
    await expect(w.completed(undefined)).rejects.toThrow(/lost/);
  });

  it('with nothing else in flight, it probes; a probe answered releases the held request', async () => {
    const { w, probes } = watch(0);
    const held = w.completed('timeout');
    expect(probes).toHaveLength(1);
    w.probed(undefined);
    expect(await state(held)).toBe('judged');
  });

  it('silent probes count towards the loss, and each asks again', async () => {
    const { w, probes } = watch(0);
    const held = w.completed('timeout');
    w.probed('timeout');
    expect(probes).toHaveLength(2);
    w.probed('timeout');
    expect(await state(held)).toMatch(/^dropped: lost/);
  });

  it('stop drops the held requests with the given error', async () => {
    const { w } = watch(1);
    const held = w.completed('timeout');
    w.stop(new Error('interrupted by SIGINT'));
    expect(await state(held)).toBe('dropped: interrupted by SIGINT');
  });
});
