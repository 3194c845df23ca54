import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../../suites/defaults.js';
import { concurrencyFor, InFlightGate, MAX_WIDENED, RoundTrip } from '../../../suites/session/in-flight.js';
import { reportSchema } from '../../../spec/report-schema.js';
import { newAjv } from '../../../spec/validate.js';

describe('the in-flight limit: widened only when not given', () => {
  it.each([
    [undefined, undefined, { limit: 32, source: 'default' }],
    [undefined, 0.4, { limit: 32, source: 'default', rttMs: 0.4 }],
    [undefined, 10, { limit: 32, source: 'default', rttMs: 10 }],
    [undefined, 10.04, { limit: 64, source: 'widened', rttMs: 10 }],
    [undefined, 25, { limit: 96, source: 'widened', rttMs: 25 }],
    [undefined, 30, { limit: 96, source: 'widened', rttMs: 30 }],
    [undefined, 60, { limit: 128, source: 'widened', rttMs: 60 }],
    [undefined, 5000, { limit: 128, source: 'widened', rttMs: 5000 }],
    // Given, a hard limit whatever the round trip: never widened, never narrowed.
    [32, 60, { limit: 32, source: 'given' }],
    [1, 5000, { limit: 1, source: 'given' }],
    [256, 0.1, { limit: 256, source: 'given' }],
  ] as const)('given %s, round trip %s ms: %o', (given, rttMs, expected) => {
    expect(concurrencyFor(given, rttMs)).toEqual(expected);
  });

  it('widens from the default to 4× it, never past', () => {
    expect(DEFAULTS.concurrency).toBe(32);
    expect(MAX_WIDENED).toBe(128);
    for (let rtt = 0; rtt <= 200; rtt += 0.5) {
      const { limit } = concurrencyFor(undefined, rtt);
      expect(limit).toBeGreaterThanOrEqual(DEFAULTS.concurrency);
      expect(limit).toBeLessThanOrEqual(MAX_WIDENED);
    }
  });

  it("the round trip is the shortest exchange seen; the preflight's time halved (a third on https), its connection opened for it", () => {
    const rtt = new RoundTrip();
    expect(rtt.ms).toBeUndefined();
    rtt.first(120, false);
    expect(rtt.ms).toBe(60);
    rtt.saw(75);
    expect(rtt.ms).toBe(60);
    rtt.saw(31);
    rtt.saw(Number.NaN);
    expect(rtt.ms).toBe(31);
    const tls = new RoundTrip();
    tls.first(120, true);
    expect(tls.ms).toBe(40);
  });

  it('what it records is valid in the published report schema', () => {
    const validate = newAjv({ allErrors: true }).compile(reportSchema.properties.options.properties.concurrency);
    for (const record of [concurrencyFor(undefined, 60), concurrencyFor(undefined, undefined), concurrencyFor(8, 60)])
      expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('InFlightGate', () => {
  it('holds requests over the limit; widened, the waiting ones start at once, in order', async () => {
    const gate = new InFlightGate(2);
    const started: number[] = [];
    const all = [0, 1, 2, 3, 4].map((i) => gate.acquire().then(() => started.push(i)));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gate.limit = 4;
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3]);
    gate.release();
    await Promise.all(all);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('narrowed, none starts until fewer than the limit are in flight', async () => {
    const gate = new InFlightGate(3);
    for (let i = 0; i < 3; i++) await gate.acquire();
    gate.limit = 1;
    let started = false;
    const waiting = gate.acquire().then(() => (started = true));
    gate.release();
    gate.release();
    await Promise.resolve();
    expect(started).toBe(false);
    gate.release();
    await waiting;
    expect(started).toBe(true);
  });
});
