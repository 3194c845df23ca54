/**
 * The `--reporter` values, in the order the reporters run: files first, the
 * console last so it can list them. Apart from reports/index.ts so the CLI can
 * describe its flags without loading the reporters.
 */
const NAMES = ['json', 'junit', 'html', 'github', 'console'] as const;

export type ReporterName = (typeof NAMES)[number];

export const REPORTER_NAMES: ReporterName[] = [...NAMES];

/**
 * The file each file reporter writes into the report directory, by reporter:
 * the tool's own names, the only ones a run removes when an earlier run left
 * them and it does not write them (and only when the suite wrote that file:
 * reports/markers.ts).
 */
export const REPORT_FILES = { json: 'report.json', junit: 'junit.xml', html: 'report.html' } as const satisfies Partial<
  Record<ReporterName, string>
>;

/** The reporters that write files. */
export type FileReporterName = keyof typeof REPORT_FILES;
