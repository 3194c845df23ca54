/**
 * `petstore-conformance replay <report.json> <case-id> [--base-url other]`:
 * sends a recorded failure's request again, byte for byte, and judges the
 * answer as the run did, so a developer can check a fix, or compare staging
 * with production. Exit codes: 0 it passes now, 1 it still fails, 2 usage error
 * or no answer, 4 answered but the answer cannot be judged alone.
 */
import { type ConnectOptions, redactSecrets, secretLabel } from '../core/connection.js';
import { UsageError } from '../core/errors.js';
import { HttpClient, parseBaseUrl, targetOf } from '../core/http.js';
import { KEY_ENV, KEY_PLACEHOLDER, redactorFor, unredact } from '../core/redact.js';
import { EvidenceFactory } from '../suites/evidence.js';
import type { AuthKind, SentExchange } from '../suites/check.js';
import { describeResponse } from '../suites/judge.js';
import type { Finding } from '../suites/model.js';
import { rejudge } from '../suites/replay.js';
import type { Io } from './main.js';
import { readReport } from './report-file.js';

export const REPLAY_EXIT = { passes: 0, fails: 1, error: 2, notJudged: 4 } as const;

export interface ReplayOptions {
  baseUrl?: string;
  apiKey?: string;
  timeoutMs: number;
  cwd: string;
  /** How to reach the target (--ca, --insecure, --cert, --proxy, -H…): TLS is verified as asked now, whatever the run did. */
  connection?: ConnectOptions;
}

/** Runs the replay; returns its exit code. Throws `PcError` for usage problems. */
export async function replayCommand(reportPath: string, caseId: string, options: ReplayOptions, io: Pick<Io, 'stdout'>): Promise<number> {
  const { file, result } = await readReport(reportPath, options.cwd);
  const finding = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings)).find((f): f is Finding & Required<Pick<Finding, 'case'>> => f.case?.id === caseId);
  if (!finding) throw new UsageError(`${file}: no failure has case id ${caseId} (each failure's id is printed after "replay:" and stored as findings[].case.id)`);
  const base = parseBaseUrl(options.baseUrl ?? result.target);
  const target = targetOf(base);
  const { request, judge } = finding.case;
  const needsKey = Object.values(request.headers).some((v) => v.includes(KEY_PLACEHOLDER));
  if (needsKey && !options.apiKey) throw new UsageError(`this request carries the key: pass --api-key or set ${KEY_ENV}`);
  const key = options.apiKey ?? '';
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = key ? unredact(value, key) : value;

  // Headers given now (-H, --secret-header) replace the recorded ones of the same name; a recorded secret header that
  // is not given again cannot be sent (only its label was recorded).
  const given = options.connection?.headers ?? {};
  for (const name of Object.keys(headers)) if (Object.hasOwn(given, name.toLowerCase())) delete headers[name];
  const unresolved = Object.entries(headers).find(([name, value]) => value.includes(secretLabel(name)));
  if (unresolved) throw new UsageError(`this request carries the secret header ${unresolved[0]}, whose value was redacted: pass it again with --secret-header`);
  const client = new HttpClient({ baseUrl: target, timeoutMs: options.timeoutMs, ...options.connection });
  let x: SentExchange;
  try {
    const sent = await client.send({ method: request.method as 'GET' | 'POST', path: request.path, headers, ...(request.body === undefined ? {} : { body: new Uint8Array(Buffer.from(request.body, 'base64')) }) });
    x = { ...sent, meta: { operation: finding.operation, auth: authKindOf(finding.case.auth) ?? (headers.authorization === undefined ? 'none' : needsKey ? 'valid' : 'invalid-token'), check: finding.check } };
  } finally {
    await client.close();
  }
  if (!x.response) throw x.error!;

  const evidence = new EvidenceFactory(redactSecrets(redactorFor(key), options.connection), key);
  const sameTarget = target === result.target;
  const again = rejudge(judge, x, sameTarget);
  const lines = [
    `case ${caseId} · ${finding.rule} · ${finding.check}`,
    `recorded: ${finding.message}`,
    `sent:     ${x.request.method} ${evidence.redact(x.request.url)}${sameTarget ? '' : ` (recorded against ${result.target}; what the run knew of that store is not applied here)`}`,
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
    lines.push(`verdict:  not judged: ${again.messages.join('; ')}`);
    code = REPLAY_EXIT.notJudged;
  }
  lines.push(`reproduce: ${evidence.curl(x)}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return code;
}

const AUTH_KINDS: readonly AuthKind[] = ['valid', 'none', 'invalid-token', 'empty-token', 'other-scheme', 'scheme-case'];

/** The recorded auth kind of a case, when it is one this version knows. */
function authKindOf(recorded: string | undefined): AuthKind | undefined {
  return AUTH_KINDS.find((k) => k === recorded);
}
