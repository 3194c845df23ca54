/**
 * The one schema of the options (cli/option-schema.ts) and its views agree:
 * every entry's flag, variable and config key reach the same engine option,
 * with the same value in the same unit, and with nothing given the engine's
 * default is the one `--help` shows; no flag exists outside the schema. No
 * process, no socket: the flags are parsed by yargs with the run's own table,
 * the config file is a temporary file, the engine's options are resolved by
 * `resolve` (what `runConformance` calls first).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import yargs, { type Options } from 'yargs';
import { certifyOptions } from '../../../cli/certify.js';
import { UsageError } from '../../../core/errors.js';
import { configSchema } from '../../../cli/config-schema.js';
import { documented } from '../../../cli/env.js';
import type { Io } from '../../../cli/io.js';
import { main } from '../../../cli/main.js';
import { type Command, OPTION_SCHEMA, type OptionKey } from '../../../cli/option-schema.js';
import { engineDefault, engineSettingsOf, HELP_GROUP } from '../../../cli/option-views.js';
import { inFlags, replayOptions, serveOptions } from '../../../cli/options.js';
import { RUN_OPTIONS, toConfig } from '../../../cli/run-config.js';
import { rules } from '../../../spec/rules.js';
import { resolve, type Resolved } from '../../../suites/options.js';

const BASE_URL = 'http://127.0.0.1:9/v1';
const KEY = 'unit-Tq8-option-schema-key';
const MUST = rules.find((r) => r.severity === 'MUST')!.id;
const SHOULD = rules.find((r) => r.severity === 'SHOULD')!.id;

/** A value for each option that becomes an engine option: as a flag and its variable write it, as the file holds it, and what the engine must receive. */
const SAMPLES: Partial<Record<OptionKey, { text: string; file: unknown; engine: unknown }>> = {
  seed: { text: '7', file: 7, engine: 7 },
  numRuns: { text: '5', file: 5, engine: 5 },
  strict: { text: 'true', file: true, engine: true },
  widenConcurrency: { text: 'true', file: true, engine: true },
  timeout: { text: '1234', file: 1234, engine: 1234 },
  maxWait: { text: '3', file: 3, engine: 3000 },
  waitFor: { text: '2.5', file: 2.5, engine: 2500 },
  visibilityWindow: { text: '1.5', file: 1.5, engine: 1500 },
  concurrency: { text: '4', file: 4, engine: 4 },
  rateLimit: { text: '5', file: 5, engine: 5 },
  maxTime: { text: '60', file: 60, engine: 60_000 },
  load: { text: 'baseline', file: 'baseline', engine: 'baseline' },
  only: { text: MUST, file: [MUST], engine: [MUST] },
  skip: { text: SHOULD, file: [SHOULD], engine: [SHOULD] },
  maxFailures: { text: '3', file: 3, engine: 3 },
  userAgent: { text: 'schema-test/1', file: 'schema-test/1', engine: 'schema-test/1' },
  fingerprints: { text: 'curl', file: ['curl'], engine: ['curl'] },
};

const ENTRIES = Object.entries(OPTION_SCHEMA) as [OptionKey, (typeof OPTION_SCHEMA)[OptionKey]][];
const ENGINE_ENTRIES = ENTRIES.filter(([, spec]) => spec.engine !== undefined);

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
/** A folder outside any repository: no config file is found upward from it. */
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pc-option-schema-'));
  dirs.push(dir);
  return dir;
}

const silent = { write: () => true } as unknown as Io['stdout'];
const ioOf = (env: NodeJS.ProcessEnv, cwd = folder()): Io => ({ stdout: silent, stderr: silent, env, cwd });

/** The engine's options of a run given `argv` (parsed with the run's own yargs table), `env` and, when given, a config file holding `file`. */
async function resolvedOf(argv: readonly string[], env: NodeJS.ProcessEnv = {}, file?: Record<string, unknown>): Promise<Resolved> {
  const cwd = folder();
  const withFile =
    file === undefined
      ? []
      : (writeFileSync(join(cwd, 'given.config.json'), JSON.stringify(file)), ['--config', join(cwd, 'given.config.json')]);
  const flags = (await yargs([...argv, ...withFile])
    .options(documented(RUN_OPTIONS))
    .strict()
    .parseAsync()) as Record<string, unknown>;
  const config = await toConfig(flags, ioOf({ PETSTORE_API_KEY: KEY, ...env }, cwd));
  return resolve({ baseUrl: BASE_URL, apiKey: KEY, ...engineSettingsOf(config) });
}

describe('the option schema', () => {
  it('every option that becomes an engine option has a sample here (a new one needs its line)', () => {
    expect(ENGINE_ENTRIES.map(([key]) => key).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  describe.each(ENGINE_ENTRIES)('%s', (key, spec) => {
    const sample = SAMPLES[key]!;
    const engineKey = spec.engine!.key as keyof Resolved;

    it('its flag, its variable and its config key give the engine the same value, in the engine unit', async () => {
      const viaFlag = await resolvedOf([`--base-url=${BASE_URL}`, `--${spec.flag}`, sample.text]);
      const viaEnv = await resolvedOf([`--base-url=${BASE_URL}`], { [spec.env]: sample.text });
      const viaFile = await resolvedOf([`--base-url=${BASE_URL}`], {}, { [spec.file!.key]: sample.file });
      expect(viaFlag[engineKey]).toEqual(sample.engine);
      expect(viaEnv[engineKey]).toEqual(sample.engine);
      expect(viaFile[engineKey]).toEqual(sample.engine);
      // The CLI's unit, converted once: what the flag says is what the schema's unit turns into the engine's.
      if (typeof sample.file === 'number') expect(spec.engine!.unit.toEngine(sample.file)).toBe(sample.engine);
    });

    it('with nothing given the engine receives the default --help shows', async () => {
      const resolved = await resolvedOf([`--base-url=${BASE_URL}`]);
      const shown = /\[default: ([^\]]+)\]$/.exec(spec.help)?.[1];
      const engineOwn = engineDefault(spec);
      if (engineOwn !== undefined) {
        // The engine's default; the CLI leaves it unset (applied once) unless the CLI has its own (`load`).
        const cliOwn = spec.default;
        expect(resolved[engineKey]).toEqual(cliOwn ?? (typeof engineOwn === 'number' ? spec.engine!.unit.toEngine(engineOwn) : engineOwn));
        if (shown !== undefined) expect(shown).toBe(String(cliOwn ?? engineOwn));
      } else if (spec.default !== undefined) {
        expect(resolved[engineKey]).toEqual(spec.default);
      }
    });
  });

  it('every flag of the run has its variable in --help and its key in the config file (or says it has none)', () => {
    const shown = documented(RUN_OPTIONS);
    const fileKeys = Object.keys(configSchema.properties);
    for (const [key, spec] of ENTRIES) {
      expect(spec.env, key).toBe(`PETSTORE_${spec.flag.toUpperCase().replace(/-/g, '_')}`);
      expect(shown[spec.flag]?.describe, key).toContain(`(env ${spec.env}`);
      if (spec.file) expect(fileKeys, key).toContain(spec.file.key);
    }
    // The file's keys are the schema's, and the file's own (its $schema, headers and profiles).
    expect(fileKeys.sort()).toEqual(
      [...ENTRIES.flatMap(([, spec]) => (spec.file ? [spec.file.key] : [])), '$schema', 'headers', 'profiles'].sort(),
    );
  });

  it("the CLI's own defaults are applied by the merge, from the schema", async () => {
    const config = await toConfig({ 'base-url': BASE_URL }, ioOf({ PETSTORE_API_KEY: KEY }));
    for (const [key, spec] of ENTRIES) {
      if (spec.engine !== undefined && engineDefault(spec) !== undefined)
        expect(config[key as keyof typeof config], key).toEqual(spec.default);
      else if (spec.default !== undefined)
        expect(key in config ? config[key as keyof typeof config] : (config.connection as Record<string, unknown>)[key], key).toEqual(
          spec.default,
        );
    }
  });

  it('no flag exists outside the schema: the tables and --help of the run list the schema flags', async () => {
    const flags = ENTRIES.map(([, spec]) => spec.flag);
    expect(Object.keys(RUN_OPTIONS)).toEqual(flags);
    // yargs prints its help with console.log.
    let help = '';
    const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void (help += `${parts.join(' ')}\n`));
    try {
      expect(await main(['--help'], ioOf({}))).toBe(0);
    } finally {
      log.mockRestore();
    }
    const options = help.slice(help.indexOf('\nTarget and TLS:'), help.indexOf('\nExamples:'));
    const listed = [...options.matchAll(/^\s+(?:-\w, )?--([a-z][a-z-]*)(?= {2,}|$)/gm)].map((m) => m[1]!);
    expect(help).toContain('\nOptions:');
    expect(help).toContain('\nExamples:');
    expect(listed.sort()).toEqual([...flags, 'help', 'version'].sort());
    // Grouped, each flag under the heading the schema's view gives it, in four groups before yargs' own.
    const sections = options
      .trim()
      .split(/\n(?=[A-Z][A-Za-z ]*:\n)/)
      .map((section) => {
        const [heading, ...lines] = section.trim().split('\n');
        return [heading!, [...lines.join('\n').matchAll(/^\s+(?:-\w, )?--([a-z][a-z-]*)(?= {2,}|$)/gm)].map((m) => m[1]!)] as const;
      });
    expect(sections.map(([heading]) => heading)).toEqual(['Target and TLS:', 'Output:', 'Run:', 'Load:', 'Options:']);
    for (const [key, spec] of ENTRIES) {
      const under = sections.find(([, listedThere]) => listedThere.includes(spec.flag))?.[0];
      expect(under, spec.flag).toBe(HELP_GROUP[key]);
    }
  });

  const tables: Record<Command, Record<string, Options>> = {
    run: RUN_OPTIONS,
    replay: replayOptions,
    certify: certifyOptions,
    serve: serveOptions,
  };
  it.each(Object.keys(tables) as Command[])("%s takes the schema's flags its entries name, and no other of them", (command) => {
    const table = tables[command];
    for (const [key, spec] of ENTRIES) {
      const offered = Object.hasOwn(table, spec.flag) && table[spec.flag]!.hidden !== true;
      expect(offered, `${command} --${spec.flag} (${key})`).toBe(spec.commands.includes(command));
    }
  });

  it('a value the engine refuses is named in the unit its flag takes: --max-time -5 says -5 (seconds), not -5000', async () => {
    const refused = await resolvedOf([`--base-url=${BASE_URL}`, '--max-time', '-5']).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect(inFlags(refused as UsageError)).toBe('--max-time must be a positive number of seconds, got -5');
  });
});
