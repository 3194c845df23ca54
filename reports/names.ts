/**
 * The `--reporter` values, in the order the reporters run: files first, the
 * console last so it can list them. Apart from reports/index.ts so the CLI can
 * describe its flags without loading the reporters.
 */
const NAMES = ['json', 'junit', 'html', 'github', 'console'] as const;

export type ReporterName = (typeof NAMES)[number];

export const REPORTER_NAMES: ReporterName[] = [...NAMES];
