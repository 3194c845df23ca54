/**
 * `export-load`: a load profile as a script for k6 or Artillery, so that the
 * same load can come from more machines than the one the suite runs on (k6
 * cloud or distributed k6, Artillery's cloud runners, several hosts at once).
 * The renderers are the load phase's (suites/load/export/); this command reads
 * the profile, writes the script (and Artillery's processor) through
 * core/safe-write, and says how to run it.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Options } from 'yargs';
import { UsageError } from '../core/errors.js';
import { refusalOf, writeFileAtomic } from '../core/safe-write.js';
import { parseBaseUrl, targetOf } from '../core/http.js';
import { renderArtillery } from '../suites/load/export/artillery.js';
import { renderK6 } from '../suites/load/export/k6.js';
import { EXPORT_FORMATS, EXPORTED_MARKER, type ExportFormat, type ExportInput } from '../suites/load/export/script.js';
import { builtinProfiles, type LoadProfile, validateProfile } from '../suites/load/profiles.js';
import { EXIT } from '../result/policy.js';
import { loadConfigFile, profilesOf } from './config.js';
import type { Io } from './io.js';

export const exportLoadOptions = {
  profile: { type: 'string', describe: 'The load profile: smoke, baseline, stress, soak, or one from the config file' },
  format: {
    type: 'string',
    choices: EXPORT_FORMATS,
    describe: 'k6 (a JavaScript test for k6 run) or artillery (a YAML script for artillery run)',
  },
  out: {
    type: 'string',
    describe:
      'File to write (default: stdout, k6 only). An Artillery script comes with its processor (it judges each answer), written beside it as <name>.processor.cjs',
  },
  'base-url': {
    type: 'string',
    describe: 'Base URL written into the script as its default; PETSTORE_BASE_URL, where the script runs, overrides it',
  },
  config: { type: 'string', describe: 'Config file holding the profile [default: found as for a run]' },
} satisfies Record<string, Options>;

/** The command: validates, renders, writes. Exit 0, or 2 for a usage error. */
export async function exportLoadCommand(args: Record<string, unknown>, io: Io): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const format = args.format as ExportFormat | undefined;
  if (!format) throw new UsageError(`export-load needs --format (${EXPORT_FORMATS.join(' or ')})`);
  const file = (await loadConfigFile(args.config as string | undefined, cwd, io.env)).config;
  const profiles: Record<string, LoadProfile> = { ...builtinProfiles, ...profilesOf(file) };
  const name = args.profile as string | undefined;
  if (!name) throw new UsageError(`export-load needs --profile (known: ${Object.keys(profiles).join(', ')})`);
  const profile = profiles[name];
  if (!profile) throw new UsageError(`--profile: unknown profile "${name}" (known: ${Object.keys(profiles).join(', ')})`);
  const named = { ...profile, name };
  const thresholds = validateProfile(named);
  const given = (args['base-url'] as string | undefined) ?? file.baseUrl;
  const baseUrl = given === undefined ? undefined : targetOf(parseBaseUrl(given));
  const out = args.out === undefined ? undefined : resolve(cwd, String(args.out));
  const input: ExportInput = {
    profile: named,
    thresholds,
    command: `export-load --profile ${name} --format ${format}`,
    ...(baseUrl ? { baseUrl } : {}),
    ...(out ? { scriptName: basename(out) } : {}),
  };
  const exported = format === 'k6' ? renderK6(input) : renderArtillery(input);
  if (!out) {
    if (Object.keys(exported.extra).length > 0)
      throw new UsageError(
        `an Artillery script comes with a processor file that judges each answer, so it cannot go to stdout: give --out <file>.yml to write both`,
      );
    io.stdout.write(exported.script);
    return EXIT.conformant;
  }
  const folder = await stat(dirname(out)).catch(() => undefined);
  if (!folder?.isDirectory())
    throw new UsageError(`--out ${String(args.out)}: the folder ${dirname(out)} ${folder ? 'is not a folder' : 'does not exist'}`);
  const outGiven = String(args.out);
  const files = [
    [out, exported.script, `--out ${outGiven}`],
    ...Object.entries(exported.extra).map(([extra, text]) => [join(dirname(out), extra), text, join(dirname(outGiven), extra)]),
  ] as const;
  // A file named at --out (or the processor beside it) is replaced only when export-load wrote it; both are checked first.
  const inTheWay = await refusalOf(
    files.map(([path, , label]) => ({ path, ours: EXPORTED_MARKER, label })),
    'give another --out',
  );
  if (inTheWay) throw new UsageError(inTheWay);
  const written: string[] = [];
  for (const [path, content, label] of files) {
    await writeFileAtomic(path, content, { label, ours: EXPORTED_MARKER });
    written.push(path);
  }
  const run = format === 'k6' ? `PETSTORE_API_KEY=… k6 run ${out}` : `PETSTORE_API_KEY=… artillery run ${out}`;
  io.stdout.write(`wrote ${written.join(', ')}\nrun it with: ${run}${baseUrl ? '' : ' (and PETSTORE_BASE_URL=https://…/v1)'}\n`);
  return EXIT.conformant;
}
