/**
 * The load statistics (suites/load/stats.ts): what runs on the response path. Closing a second of the timeline
 * reads no percentile and builds no histogram there (issue 23: once a second a fresh histogram and some twenty
 * percentile walks ran inside a response's handler); the figures stay those of one histogram of every latency.
 */
import * as hdr from 'hdr-histogram-js';
import { beforeEach, describe, expect, it } from 'vitest';
import { LoadStats } from '../../../suites/load/stats.js';

/** Histograms built and percentiles read through {@link counting} (vitest shares modules between files: no mock). */
const counted = { built: 0, percentiles: 0 };

/** The same settings as the stats' own histograms. */
function reference(values: readonly number[] = []): hdr.Histogram {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false,
  });
  for (const v of values) h.recordValue(v);
  return h;
}

/** A histogram as the stats get one, counting its building and each percentile read. */
function counting(): hdr.Histogram {
  counted.built++;
  const histogram = reference();
  const at = histogram.getValueAtPercentile.bind(histogram);
  histogram.getValueAtPercentile = (p: number) => {
    counted.percentiles++;
    return at(p);
  };
  return histogram;
}

/** Latencies (µs) of second `s`: spread, so that p50 and p99 differ from one second to the next. */
const latencies = (s: number) => Array.from({ length: 200 }, (_, i) => 100 + ((i * 37 + s * 11) % 200) * (s + 1));

beforeEach(() => {
  counted.built = 0;
  counted.percentiles = 0;
});

describe('load statistics', () => {
  it('closes a second inside a response handler without reading a percentile or building a histogram', () => {
    const stats = new LoadStats(0, counting);
    const built = counted.built;
    for (const v of latencies(0)) stats.record('getPet', v, true, 500);
    // The first response of second 1 closes second 0.
    stats.record('getPet', 1000, true, 1500);
    expect(counted.percentiles).toBe(0);
    expect(counted.built).toBe(built);
  });

  it('reuses its histograms however long the profile runs', () => {
    const stats = new LoadStats(0, counting);
    const built = counted.built;
    for (let s = 0; s < 30; s++) {
      for (const v of latencies(s)) stats.record(s % 2 ? 'listPets' : 'getPet', v, true, s * 1000 + 10);
      expect(stats.timeline.length).toBe(s);
    }
    expect(counted.built).toBe(built);
  });

  it('gives each second and the whole the figures of one histogram of their latencies', async () => {
    const stats = new LoadStats(0, counting);
    const all: number[] = [];
    for (let s = 0; s < 5; s++)
      for (const [i, v] of latencies(s).entries()) {
        stats.record((['listPets', 'getPet', 'createPet'] as const)[i % 3], v, i % 50 !== 0, s * 1000 + 5 + i);
        all.push(v);
      }
    // Counted in the second under way (the 5th).
    stats.failure('timeouts', 2, 'getPet', 4500);
    // Second 6 has nothing: the timeline says so.
    stats.record('getPet', 300, true, 7100);
    all.push(300);
    const timeline = stats.timeline;
    expect(timeline.map((r) => r.second)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (let s = 0; s < 5; s++) {
      const h = reference(latencies(s));
      expect(timeline[s]).toEqual({
        second: s,
        requests: 200,
        errors: 4 + (s === 4 ? 2 : 0),
        p50: Math.round(h.getValueAtPercentile(50)) / 1000,
        p99: Math.round(h.getValueAtPercentile(99)) / 1000,
      });
    }
    expect(timeline[5]).toEqual({ second: 5, requests: 0, errors: 0, p50: 0, p99: 0 });
    const figures = stats.finish(8, 7600);
    const h = reference(all);
    expect(figures.overall.requests).toBe(all.length);
    expect(figures.overall.errors).toEqual({ non2xx: 20, timeouts: 2, socketErrors: 0 });
    expect(figures.overall.latencyMs).toEqual({
      p50: Math.round(h.getValueAtPercentile(50)) / 1000,
      p90: Math.round(h.getValueAtPercentile(90)) / 1000,
      p95: Math.round(h.getValueAtPercentile(95)) / 1000,
      p97_5: Math.round(h.getValueAtPercentile(97.5)) / 1000,
      p99: Math.round(h.getValueAtPercentile(99)) / 1000,
      p99_9: Math.round(h.getValueAtPercentile(99.9)) / 1000,
      max: Math.round(h.maxValue) / 1000,
      mean: Math.round(h.mean) / 1000,
    });
    expect(figures.operations.getPet.errors.timeouts).toBe(2);
    expect(stats.timeline.at(-1)).toMatchObject({ second: 7, requests: 1, errors: 0, p50: 0.3, p99: 0.3 });
  });
});
