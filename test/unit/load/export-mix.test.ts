/**
 * The exported scripts against the load phase's own description, without a
 * process or a socket: the k6 script's cycle and the Artillery script's flow
 * are the requests the load phase builds (suites/load/mix.ts `buildMix`, with
 * the seed the scripts are drawn with and the set-up's animals), in order,
 * and each script holds every threshold the load phase judges (run.ts), with
 * the same limit, or says it cannot.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderArtillery } from '../../../suites/load/export/artillery.js';
import { renderK6 } from '../../../suites/load/export/k6.js';
import { type ExportInput, SCRIPT_SEED } from '../../../suites/load/export/script.js';
import { buildMix, LOAD_SETUP_ANIMALS, type MixRequest } from '../../../suites/load/mix.js';
import { authProbeShareOf, builtinProfiles, type LoadProfile, validateProfile } from '../../../suites/load/profiles.js';
import { answeredThreshold } from '../../../suites/load/run.js';

/** Profiles of each kind, with mixes and probe shares unlike the built-in ones. */
const PROFILES: LoadProfile[] = [
  builtinProfiles.smoke!,
  builtinProfiles.stress!,
  {
    name: 'steady',
    description: 'rate',
    kind: 'rate',
    rate: 40,
    connections: 8,
    durationSec: 2,
    maxRequests: 1000,
    mix: { listPets: 2, getPet: 1, createPet: 1 },
    authProbeShare: 0.1,
    thresholds: [
      'p99 < 500ms',
      'getPet.p50 < 200ms',
      'errorRate < 1%',
      'throughput > 5/s',
      'getPet.errorRate < 1%',
      'p97_5 < 900ms',
      'drift < 2x',
    ],
  },
  {
    name: 'keyed',
    description: 'closed',
    kind: 'closed',
    connections: 2,
    durationSec: 1,
    maxRequests: 10,
    mix: { listPets: 1, getPet: 5, createPet: 2 },
    authProbeShare: 0,
    thresholds: ['listPets.p90 < 90ms', 'mean < 40ms', 'max < 2s'],
  },
];

const inputOf = (profile: LoadProfile): ExportInput => ({
  profile,
  thresholds: validateProfile(profile),
  command: `export-load --profile ${profile.name}`,
});

/** Stand-ins for the set-up's animals: getPet asks for the n-th of them. */
const IDS = Array.from({ length: LOAD_SETUP_ANIMALS }, (_, i) => 9_000_000_000_000_000n + BigInt(i));

/** The requests the load phase sends for `profile`, as method, path and key: the animals by their set-up index. */
function phaseRequests(profile: LoadProfile): string[] {
  const requests = buildMix({
    mix: profile.mix,
    petIds: IDS,
    prefix: 'pcload-test ' as never,
    seed: SCRIPT_SEED,
    authProbeShare: authProbeShareOf(profile),
  });
  const show = (r: MixRequest) =>
    `${r.method} ${r.petId === undefined ? r.path : `/pets/#${IDS.indexOf(r.petId)}`}${r.authProbe ? ' (no key)' : ''}`;
  return requests.map(show);
}

/** The k6 script's cycle, as the same strings: its script resolves a query and an animal as below. */
function k6Requests(script: string): string[] {
  const constant = (name: string) => JSON.parse(new RegExp(`^const ${name} = (.*);$`, 'm').exec(script)![1]!) as unknown;
  const cycle = constant('CYCLE') as [string, number, number][];
  const limits = constant('LIMITS') as (number | null)[];
  const statuses = constant('STATUSES') as (string | null)[];
  return cycle.map(([op, n, probe]) => {
    const key = probe ? ' (no key)' : '';
    if (op === 'createPet') return `POST /pets${key}`;
    if (op === 'getPet') return `GET /pets/#${n % LOAD_SETUP_ANIMALS}${key}`;
    const limit = limits[n % limits.length];
    const status = statuses[Math.floor(n / limits.length) % statuses.length];
    const query = [limit === null ? '' : `limit=${limit}`, status === null ? '' : `status=${status}`].filter(Boolean).join('&');
    return `GET /pets${query ? `?${query}` : ''}${key}`;
  });
}

interface Step {
  name: string;
  url: string;
  headers?: { authorization?: string };
}

/** The Artillery script's requests in order (the loop of a closed loop or a ramp; one scenario each at a fixed rate). */
function artilleryRequests(script: string): string[] {
  const yaml = parse(script) as { scenarios: { flow: Record<string, unknown>[] }[] };
  const flow = yaml.scenarios.flatMap((s) =>
    s.flow.flatMap((step) => ('loop' in step ? (step.loop as Record<string, Step>[]) : [step as Record<string, Step>])),
  );
  return flow.map((step) => {
    const [method, request] = Object.entries(step)[0]!;
    const key = request.headers?.authorization === undefined ? ' (no key)' : '';
    return `${method.toUpperCase()} ${request.url.replace(/\{\{ petId(\d+) \}\}/, '#$1')}${key}`;
  });
}

/** Each operation's share of a list of requests. */
function shares(requests: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const op = r.startsWith('POST') ? 'createPet' : r.includes('#') ? 'getPet' : 'listPets';
    const name = r.endsWith('(no key)') ? 'authProbe' : op;
    out[name] = (out[name] ?? 0) + 1 / requests.length;
  }
  return out;
}

describe("the exported scripts send the load phase's requests", () => {
  it.each(PROFILES.map((p) => [p.name, p] as const))('%s: k6 and Artillery, request for request', (_, profile) => {
    const phase = phaseRequests(profile);
    expect(phase.length).toBeGreaterThan(200);
    expect(k6Requests(renderK6(inputOf(profile)).script)).toEqual(phase);
    expect(artilleryRequests(renderArtillery(inputOf(profile)).script)).toEqual(phase);
  });

  it("smoke: the phase's shares, 6:3:1 with 4 of 240 requests without a key, in both scripts", () => {
    const profile = builtinProfiles.smoke!;
    const expected = { listPets: 140 / 240, getPet: 72 / 240, createPet: 24 / 240, authProbe: 4 / 240 };
    for (const requests of [
      phaseRequests(profile),
      k6Requests(renderK6(inputOf(profile)).script),
      artilleryRequests(renderArtillery(inputOf(profile)).script),
    ]) {
      const measured = shares(requests);
      for (const [op, share] of Object.entries(expected)) expect(measured[op], op).toBeCloseTo(share, 10);
    }
  });
});

/** The load phase's thresholds for `profile`: its own, parsed as the phase parses them, then answered as run.ts judges it. */
function phaseThresholds(profile: LoadProfile) {
  return [...validateProfile(profile), answeredThreshold(profile.name, 1, 1)];
}

/** A threshold's limit in each tool's unit: a share for k6's rates, a percentage for Artillery's. */
const k6Limit = (t: { metric: string; limit: number }) => (t.metric === 'errorRate' || t.metric === 'answered' ? t.limit / 100 : t.limit);

describe("the exported scripts hold the load phase's thresholds", () => {
  it.each(PROFILES.map((p) => [p.name, p] as const))(
    '%s: each one in k6 and in Artillery with its limit, or said not to be',
    (_, profile) => {
      const k6 = renderK6(inputOf(profile)).script;
      const options = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(k6)![1]!) as {
        thresholds: Record<string, (string | { threshold: string })[]>;
      };
      const k6Entries = Object.entries(options.thresholds).flatMap(([metric, list]) =>
        list.map((e) => `${metric} ${typeof e === 'string' ? e : e.threshold}`),
      );
      const artillery = renderArtillery(inputOf(profile)).script;
      const conditions = (
        parse(artillery) as { config: { plugins: { ensure: { conditions: { expression: string }[] } } } }
      ).config.plugins.ensure.conditions.map((c) => c.expression);
      const thresholds = phaseThresholds(profile);
      let k6Held = 0;
      let artilleryHeld = 0;
      for (const t of thresholds) {
        const notReproduced = (text: string) =>
          text.split('\n').some((line) => line.startsWith(`${text.startsWith('#') ? '#' : '//'} Not reproduced: ${t.expression}: `));
        const scope = t.operation === 'all' ? (t.metric === 'answered' ? 'answered' : '{load:yes}') : `{operation:${t.operation}}`;
        const inK6 = k6Entries.filter((e) => e.includes(scope) && e.endsWith(`${t.comparator}${k6Limit(t)}`));
        if (inK6.length === 0) expect(notReproduced(k6), `k6: ${t.expression}`).toBe(true);
        else k6Held++;
        const inArtillery = conditions.filter(
          (c) => c.endsWith(` ${t.comparator} ${t.limit}`) && (t.operation === 'all' || c.includes(`.${t.operation}.`)),
        );
        if (inArtillery.length === 0) expect(notReproduced(artillery), `Artillery: ${t.expression}`).toBe(true);
        else artilleryHeld++;
      }
      // Nothing held beyond the phase's thresholds, one entry per threshold held, and in k6 the checks of every answer
      // (the phase's sampled judgements, which the suite counts as rules, not thresholds).
      expect(k6Entries.filter((e) => e !== 'checks rate==1')).toHaveLength(k6Held);
      expect(k6Entries).toContain('checks rate==1');
      expect(conditions.filter((c) => c !== 'petstore.wrong_answers == 0')).toHaveLength(artilleryHeld);
      expect(conditions).toContain('petstore.wrong_answers == 0');
      expect(thresholds.at(-1)).toMatchObject({ expression: 'answered >= 90%', metric: 'answered', comparator: '>=', limit: 90 });
    },
  );
});
