/**
 * Turns exchanges into evidence: the key redacted (here, once, so no reporter
 * has to), then bounded excerpts, and a curl command that sends the same bytes.
 *
 * The order is always decode → redact the whole text → escape → cut: a body is
 * decoded whole, redacted whole, and only then cut to {@link BODY_EXCERPT_CHARS};
 * every field of {@link Evidence} is `Redacted`, which only the redactor makes.
 */
import type { RedactedExchange } from '../core/boundary.js';
import { secretHeaderVariable } from '../core/connection.js';
import { KEY_ENV, KEY_PLACEHOLDER, type Redacted, Redactor, suiteText, truncate } from '../core/redact.js';
import type { ConformanceResult, Evidence, RunEvent } from '../result/model.js';
import { DEFAULT_REQUEST_HEADERS } from '../core/request-headers.js';

/** Characters of a body kept in evidence. */
export const BODY_EXCERPT_CHARS = 4096;

const lossyUtf8 = new TextDecoder('utf-8', { fatal: false });

const SHELL_KEY = `\${${KEY_ENV}}`;
/** The labels of the key's forms an Authorization header can hold, and the shell expression that makes each from $PETSTORE_API_KEY. */
const SHELL_FORMS: readonly [label: string, expression: string][] = [
  [`<base64 of conformance:${KEY_PLACEHOLDER}>`, `$(printf 'conformance:%s' "${SHELL_KEY}" | base64 -w0)`],
  [`<base64 of ${KEY_PLACEHOLDER}>`, `$(printf '%s' "${SHELL_KEY}" | base64 -w0)`],
  [`<${KEY_PLACEHOLDER} without its last character>`, `\${${KEY_ENV}%?}`],
  [`<${KEY_PLACEHOLDER} with its letter case swapped>`, `\${${KEY_ENV}~~}`],
  [KEY_PLACEHOLDER, SHELL_KEY],
];

/** Builds evidence for exchanges of one run. */
export class EvidenceFactory {
  readonly #redactor: Redactor;

  /**
   * @param redactor replaces the key and its variants with placeholders
   * @param _key the API key (curl commands expand `$PETSTORE_API_KEY` where its placeholders were)
   */
  constructor(redactor: Redactor, _key?: string) {
    this.#redactor = redactor;
  }

  /** Redacts any text the suite writes (excerpts in it rendered: redacted whole, then escaped, then cut). */
  redact(text: string): Redacted {
    return this.#redactor.redact(text);
  }

  /** The bytes of a body, redacted, as base64 (for a replay case). */
  redactBody(bytes: Uint8Array): Redacted {
    const redacted = this.#redactor.redactBytes(bytes);
    return suiteText(Buffer.from(redacted.buffer, redacted.byteOffset, redacted.byteLength).toString('base64'));
  }

  /** Header names and values redacted; two names that redact alike are joined as HTTP joins repeated headers. */
  headers(headers: Record<string, string>): Record<string, Redacted> {
    const out: Record<string, Redacted> = {};
    for (const [name, value] of Object.entries(headers)) {
      const redactedName = this.redact(name);
      const redactedValue = this.redact(value);
      out[redactedName] = Object.hasOwn(out, redactedName) ? (`${out[redactedName]}, ${redactedValue}` as Redacted) : redactedValue;
    }
    return out;
  }

  /** Evidence of an exchange that crossed the redaction boundary (core/boundary.ts); its texts are redacted once more all the same. */
  of(exchange: RedactedExchange): Evidence {
    const { request, response } = exchange;
    const evidence: Evidence = {
      seq: exchange.seq,
      request: {
        method: request.method,
        url: this.redact(request.url),
        headers: this.headers(request.headers),
        bodyBytes: request.body?.length ?? 0,
        ...(request.body ? { body: this.#excerpt(request.body, false) } : {}),
      },
      durationMs: Math.round(exchange.durationMs * 10) / 10,
      curl: this.curl(exchange),
    };
    if (response) {
      evidence.response = {
        status: response.status,
        headers: this.headers(response.headers),
        body: this.#excerpt(response.body, response.truncated),
        bodyBytes: response.body.length,
        truncated: response.truncated,
      };
    }
    if (exchange.error) evidence.transportError = this.redact(exchange.error.message);
    return evidence;
  }

  /**
   * A bash command that sends the same request, the key taken from
   * $PETSTORE_API_KEY: built from the redacted request, each placeholder of
   * the key in a header turned into the shell expression that makes that form,
   * in a header curl reads from a file ({@link shellHeader}), so that no
   * program's arguments ever hold the key.
   */
  curl(exchange: RedactedExchange): Redacted {
    const { request } = exchange;
    const parts = ['curl', '-sS', '-i', '-X', request.method, shellQuote(this.redact(request.url))];
    for (const [name, value] of Object.entries(this.headers(request.headers))) {
      if (Object.hasOwn(DEFAULT_REQUEST_HEADERS, name)) continue;
      parts.push('-H', shellHeader(name, value));
    }
    if (request.body) parts.push('--data-binary', shellQuote(this.#redactor.redactBytes(request.body)));
    // Built from redacted parts; redacted once more all the same.
    return this.redact(parts.join(' '));
  }

  /** A body decoded whole, redacted whole, then cut to {@link BODY_EXCERPT_CHARS}. `truncated`: the body was cut at the read bound. */
  #excerpt(bytes: Uint8Array, truncated: boolean): Redacted {
    const redactedBytes = this.#redactor.redactBytes(bytes, { complete: !truncated });
    const text = this.redact(lossyUtf8.decode(redactedBytes));
    return text.length > BODY_EXCERPT_CHARS || truncated
      ? (`${truncate(text, BODY_EXCERPT_CHARS)} [${bytes.length} bytes in all]` as Redacted)
      : text;
  }
}

/** The label of a secret header's value (core/connection.ts `secretLabel`) whose name can be a variable's. */
const SECRET_HEADER_LABEL = /^<secret ([A-Za-z0-9][A-Za-z0-9-]*)>/;

/**
 * The argument of `-H`. A header that holds none of the key's forms is one
 * single-quoted word. A header that holds some is read by curl from a file
 * (`-H @file`, curl 7.55.0 or later) that bash's `printf` builtin writes into a
 * process substitution, `@<(printf '%s\n' "name: …${PETSTORE_API_KEY}…")`: a
 * builtin is not executed as a program, so neither the key nor any form made
 * from it is ever in a process's arguments, which every user of the machine can
 * read (ps, /proc/<pid>/cmdline); `base64` reads the key from a pipe. A secret
 * header's value is taken alike from the variable `--secret-header Name`
 * reads it from (`$PETSTORE_SECRET_HEADER_X_API_KEY`).
 */
function shellHeader(name: string, value: string): string {
  let expanded = '';
  let plain = true;
  for (let at = 0; at < value.length;) {
    const form = SHELL_FORMS.find(([label]) => value.startsWith(label, at));
    // A secret header's value, from the variable --secret-header Name reads it from.
    const secret = form ? null : SECRET_HEADER_LABEL.exec(value.slice(at));
    if (form) {
      expanded += form[1];
      at += form[0].length;
      plain = false;
    } else if (secret) {
      expanded += `\${${secretHeaderVariable(secret[1]!)}}`;
      at += secret[0].length;
      plain = false;
    } else {
      expanded += value[at]!.replace(/["\\$`]/, (c) => `\\${c}`);
      at++;
    }
  }
  return plain ? shellQuote(`${name}: ${value}`) : `@<(printf '%s\\n' "${name.replace(/["\\$`]/g, (c) => `\\${c}`)}: ${expanded}")`;
}

/**
 * Quotes bytes or text for bash: single quotes when the text is printable
 * UTF-8, ANSI-C `$'…'` with \xHH escapes otherwise, so the bytes are exact.
 */
export function shellQuote(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const text = lossyUtf8.decode(bytes);
  const printable = Buffer.from(text).equals(bytes) && !/[\u0000-\u001f\u007f]/.test(text);
  if (printable) return `'${text.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  for (const byte of bytes) {
    const ch = String.fromCharCode(byte);
    if (byte >= 0x20 && byte < 0x7f && ch !== "'" && ch !== '\\') out += ch;
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

/**
 * The engine's events with every text redacted (check errors and skip
 * reasons can quote what the target sent): what an `onEvent` listener, the
 * console reporter among them, is handed.
 */
export function redactingEmitter(listener: ((event: RunEvent) => void) | undefined, evidence: EvidenceFactory): (event: RunEvent) => void {
  if (!listener) return () => {};
  return (event) => listener(event.type === 'run-end' ? event : (redactStrings(event, evidence) as RunEvent));
}

/**
 * Every string of a result redacted in place, once more: the fields the
 * recorder builds are `Redacted` already (and stay as they are); this also
 * covers what other parts write (abort and skip reasons, load results).
 */
export function redactResult(result: ConformanceResult, evidence: EvidenceFactory): void {
  Object.assign(result, redactStrings(result, evidence));
}

/**
 * Fields that hold the suite's own identifiers (rule, check and gap ids,
 * outcomes, the name prefix…), chosen or checked against the key already, and
 * compared by `verify`: left as they are.
 */
const IDENTIFIERS = new Set([
  'id',
  'rule',
  'check',
  'gap',
  'operation',
  'outcome',
  'severity',
  'group',
  'kind',
  'phase',
  'verdict',
  'namePrefix',
  'code',
  'thresholds',
  'status',
  'generator',
  'metric',
  'comparator',
  'unit',
  'only',
  'skip',
  'failedRules',
  'failed',
  'headers',
  'secretHeaders',
]);

/**
 * Values redacted, member names left as they are: a member name is the
 * report's own structure (its fields, which the key and the secrets cannot
 * hold: `SUITE_VOCABULARY`, suites/credentials.ts) or a header name that
 * {@link EvidenceFactory.headers} redacted when it built the evidence.
 * Redacting structure would rename fields and break every reader.
 */
function redactStrings(value: unknown, evidence: EvidenceFactory, name?: string): unknown {
  if (typeof value === 'string') return name !== undefined && IDENTIFIERS.has(name) ? value : evidence.redact(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, evidence, name));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactStrings(v, evidence, k);
    return out;
  }
  return value;
}
