/**
 * `petstore-conformance replay <report.json> <case-id> [--base-url other]`:
 * sends a recorded failure's request again, byte for byte, and judges the
 * answer as the run did, so a developer can check a fix, or compare staging
 * with production. Exit codes: 0 it passes now, 1 it still fails, 2 usage error
 * or no answer, 4 answered but the answer cannot be judged alone.
 *
 * A report.json is a file anyone may have edited, so the key is handled as if
 * it were hostile:
 * - the request goes only to the origin the user names, `--base-url` or
 *   `PETSTORE_BASE_URL`; without one, the report's recorded target is printed
 *   as a hint and nothing is sent (exit 2): a report names whatever origin its
 *   author wrote;
 * - a case whose path would leave that origin, or that carries a header the
 *   suite never sends (`Host`, `Forwarded`…), is refused;
 * - the key goes into the Authorization header only, and only where the case
 *   holds exactly one of the forms the suite sends (`Bearer <API_KEY>`, the
 *   auth checks' near misses); a placeholder anywhere else is refused.
 */
import { RedactionBoundary } from '../core/boundary.js';
import { type ConnectOptions, secretLabel } from '../core/connection.js';
import { UsageError } from '../core/errors.js';
import { HttpClient, parseBaseUrl, targetOf } from '../core/http.js';
import { authorizationForms, checkApiKey, KEY_ENV, KEY_PLACEHOLDER } from '../core/redact.js';
import { runRedactor, runSecrets, withCredentialHeaders } from '../suites/credentials.js';
import { findingText } from '../spec/findings.js';
import { EvidenceFactory } from '../suites/evidence.js';
import type { AuthKind, SentExchange } from '../suites/check.js';
import { describeResponse } from '../suites/judge.js';
import type { Finding, ReplayCase, SettingSources } from '../result/model.js';
import { shellWord } from '../reports/commands.js';
import { REPLAY_EXIT } from '../result/policy.js';
import { rejudge } from '../suites/replay.js';
import type { Io } from './io.js';
import { readReport } from './report-file.js';
import { type ConnectionSummary, connectionLine, sourceOf } from './transport.js';
import { DEFAULT_REQUEST_HEADERS } from '../core/request-headers.js';
import { APP_HEADERS, runClients } from '../core/clients.js';
import { fingerprintOfHeaders, type FingerprintId, type Shapes } from '../core/fingerprints.js';
import { fingerprintHeaders } from '../core/request-head.js';

/** The request headers the suite sends; a case carrying any other is refused. */
const SENT_HEADERS = new Set<string>(['authorization', 'content-type', ...Object.keys(DEFAULT_REQUEST_HEADERS), ...APP_HEADERS]);

export interface ReplayOptions {
  /** Where the request goes; without it nothing is sent. */
  baseUrl?: string;
  apiKey?: string;
  timeoutMs: number;
  cwd: string;
  /** How to reach the target (--ca, --insecure, --cert, --proxy, -H…): TLS is verified as asked now, whatever the run did. */
  connection?: ConnectOptions;
  /** The `--ca` and `--cert` files as given: for the line said before sending. */
  files?: ConnectionSummary['files'];
  /** Where the base URL and each transport setting came from (cli/transport.ts `settingSources`): for the line said before sending. */
  sources: SettingSources;
}

/** Runs the replay; returns its exit code. Throws `PcError` for usage problems. */
export async function replayCommand(reportPath: string, caseId: string, options: ReplayOptions, io: Pick<Io, 'stdout'>): Promise<number> {
  const { file, result } = await readReport(reportPath, options.cwd);
  const finding = result.rules
    .flatMap((r) => r.checks.flatMap((c) => c.findings))
    .find((f): f is Finding & Required<Pick<Finding, 'case'>> => f.case?.id === caseId);
  if (!finding)
    throw new UsageError(
      `${file}: no failure has case id ${caseId} (each failure's id is printed after "replay:" and stored as findings[].case.id)`,
    );
  if (options.baseUrl === undefined)
    throw new UsageError(
      `${file}: case ${caseId} was recorded against ${recordedOrigin(result.target)}; replay sends only to an origin you name: pass --base-url ${recordedHint(result.target)} (or set PETSTORE_BASE_URL) to send the request there; nothing was sent`,
    );
  const base = parseBaseUrl(options.baseUrl);
  const target = targetOf(base);
  const { judge } = finding.case;
  // Each client as the recorded run had it (its version drawn from the seed, or as earlier versions sent it).
  const { shapes } = runClients(result.options.disguise ?? 'fixed', result.seed);
  // A run of the tool's own shape (with a --user-agent of its own, maybe) sent none of the clients: its case goes as recorded.
  const { request, client: recordedClient } = result.options.fingerprints?.length
    ? asRecordedClient(finding.case.request, result.target, shapes)
    : { request: finding.case.request, client: undefined };
  checkCase(request, caseId, Object.keys(options.connection?.headers ?? {}));

  const key = options.apiKey ?? '';
  if (key) checkApiKey(key);
  const headers = withKey(request.headers, key, caseId);
  const needsKey = headers.authorization !== request.headers.authorization;
  const redactor = runRedactor(runSecrets(key, withCredentialHeaders(options.connection, target)));
  const evidence = new EvidenceFactory(redactor);
  // Headers given now (-H, --secret-header) replace the recorded ones of the same name; a recorded secret header that
  // is not given again cannot be sent (only its label was recorded).
  const given = options.connection?.headers ?? {};
  for (const name of Object.keys(headers)) if (Object.hasOwn(given, name.toLowerCase())) delete headers[name];
  const unresolved = Object.entries(headers).find(([name, value]) => value.includes(secretLabel(name)));
  if (unresolved)
    throw new UsageError(
      `this request carries the secret header ${unresolved[0]}, whose value was redacted: pass it again with --secret-header`,
    );

  // Where the request goes is said before it goes.
  const connectionSaid = connectionLine({
    target,
    connection: options.connection ?? {},
    files: options.files ?? {},
    sources: options.sources,
  });
  io.stdout.write(
    `${evidence.redact(`sending case ${caseId} to ${base.origin} (from ${sourceOf(options.sources, 'target')})${needsKey ? ', the key in its Authorization header' : ''}\n  ${connectionSaid}`)}\n`,
  );
  const client = new RedactionBoundary(
    new HttpClient({ baseUrl: target, timeoutMs: options.timeoutMs, ...options.connection, shapes }),
    redactor,
  );
  let x: SentExchange;
  try {
    const sent = await client.send({
      method: request.method as 'GET' | 'POST',
      path: request.path,
      headers,
      ...(request.body === undefined ? {} : { body: new Uint8Array(Buffer.from(request.body, 'base64')) }),
      ...(recordedClient ? { fingerprint: recordedClient } : {}),
    });
    x = {
      ...sent,
      meta: {
        operation: finding.operation,
        auth: authKindOf(finding.case.auth) ?? (headers.authorization === undefined ? 'none' : needsKey ? 'valid' : 'invalid-token'),
        check: finding.check,
      },
    };
  } finally {
    await client.close();
  }
  if (!x.response) throw x.error!;

  const sameTarget = target === result.target;
  const again = rejudge(judge, x, sameTarget);
  const lines = [
    `case ${caseId} · ${finding.rule} · ${finding.check}`,
    `recorded: ${findingText(finding)}`,
    `sent:     ${x.request.method} ${evidence.redact(x.request.url)}${sameTarget ? '' : ` (recorded against ${evidence.redact(result.target)}; what the run knew of that store is not applied here)`}`,
    `answer:   ${evidence.redact(describeResponse(x))}`,
  ];
  let code: number;
  if (again.verdict === 'pass') {
    lines.push(`verdict:  passes now (${[...new Set(again.passed)].join(', ')})`);
    code = REPLAY_EXIT.passes;
  } else if (again.verdict === 'fail') {
    lines.push('verdict:  still fails', ...again.messages.map((m) => `  ${evidence.redact(m)}`));
    code = REPLAY_EXIT.fails;
  } else {
    lines.push(`verdict:  not judged: ${evidence.redact(again.messages.join('; '))}`);
    code = REPLAY_EXIT.notJudged;
  }
  lines.push(`reproduce: ${evidence.curl(x)}`);
  io.stdout.write(`${evidence.redact(lines.join('\n'))}\n`);
  return code;
}

/**
 * A case recorded under a client fingerprint (known by its User-Agent, each
 * client's its own) is sent again as that client: the headers that client
 * adds by itself, with the values it adds (`Origin` the recorded target's),
 * are left out of the case and added again for the origin replay sends to.
 * Any other header stays in the case, and is judged by {@link checkCase}.
 */
function asRecordedClient(
  request: ReplayCase['request'],
  recordedTarget: string,
  shapes: Shapes,
): { request: ReplayCase['request']; client?: FingerprintId } {
  const client = fingerprintOfHeaders(request.headers);
  if (!client) return { request };
  const origin = URL.canParse(recordedTarget) ? new URL(recordedTarget).origin : '';
  const own = fingerprintHeaders(shapes[client], origin, true);
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name, value]) => own[name.toLowerCase()] !== value));
  return { request: { ...request, headers }, client };
}

/**
 * Refuses a case that could send anything anywhere but a path under the chosen
 * origin: a path that is not origin-relative, a header the suite never sends
 * (beside those given again now, `given`, which replace the recorded ones),
 * the key's placeholder outside Authorization.
 */
function checkCase(request: ReplayCase['request'], caseId: string, given: readonly string[]): void {
  const refuse = (why: string): never => {
    throw new UsageError(`case ${caseId}: ${why}; nothing was sent`);
  };
  const path = String(request.path);
  if (!path.startsWith('/') || path.startsWith('//') || /[\\\u0000-\u0020\u007f#]/.test(path))
    refuse('its path is not a path under the base URL (it must start with one "/", and hold no "\\", "#", space or control character)');
  if (path.includes('<') && path.includes('>')) refuse('its path holds a placeholder of the key; the suite never sends the key in a path');
  for (const name of Object.keys(request.headers)) {
    if (!SENT_HEADERS.has(name.toLowerCase()) && !given.includes(name.toLowerCase()))
      refuse(`it carries a header the suite never sends (${JSON.stringify(name.slice(0, 40))}), which could name another host`);
  }
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() !== 'authorization' && value.includes(KEY_PLACEHOLDER))
      refuse(`its ${name} header holds a placeholder of the key; the suite sends the key in Authorization only`);
  }
  if (request.body !== undefined && Buffer.from(request.body, 'base64').toString('latin1').includes(KEY_PLACEHOLDER))
    refuse('its body holds a placeholder of the key; the suite never sends the key in a body');
}

/**
 * The case's headers with the key put back into Authorization, exactly where
 * the recorded value is one of the forms the suite sends with a placeholder.
 */
function withKey(recorded: Record<string, string>, key: string, caseId: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(recorded)) {
    if (name.toLowerCase() !== 'authorization' || !value.includes(KEY_PLACEHOLDER)) {
      headers[name.toLowerCase() === 'authorization' ? 'authorization' : name] = value;
      continue;
    }
    if (!key) throw new UsageError(`this request carries the key: set ${KEY_ENV}`);
    const form = authorizationForms(key).find(([redacted]) => redacted === value);
    if (!form) throw new UsageError(`case ${caseId}: its Authorization header is not one the suite sends; nothing was sent`);
    headers.authorization = form[1];
  }
  return headers;
}

/** The recorded target's origin, for the refusal: as the URL parser writes it (no control character), or a word saying it is none. */
function recordedOrigin(recorded: string): string {
  try {
    return parseBaseUrl(recorded).origin;
  } catch {
    return 'a target that is not a base URL';
  }
}

/** The recorded base URL as a `--base-url` value to copy, quoted for the shell; a placeholder when it is not a base URL. */
function recordedHint(recorded: string): string {
  try {
    return shellWord(targetOf(parseBaseUrl(recorded)));
  } catch {
    return '<base URL>';
  }
}

const AUTH_KINDS: readonly AuthKind[] = ['valid', 'none', 'invalid-token', 'empty-token', 'other-scheme', 'scheme-case'];

/** The recorded auth kind of a case, when it is one this version knows. */
function authKindOf(recorded: string | undefined): AuthKind | undefined {
  return AUTH_KINDS.find((k) => k === recorded);
}
