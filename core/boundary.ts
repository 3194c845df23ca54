/**
 * The redaction boundary around a transport: the one door from a raw exchange
 * to what checks judge and reports show. Every exchange passes through it,
 * both ways (the load phase's sampled answers, which its own sender
 * received, through {@link RedactionBoundary.admit}):
 *
 * - out: a request whose path, headers (Authorization aside) or body would carry
 *   the key, in any form the redactor knows, is not sent at all: it throws
 *   {@link KeyInRequestError}, naming the request by its digest only. The suite
 *   never puts the key anywhere but Authorization, so only a coincidence of a
 *   short key with generated data gets here; redaction then never has to
 *   rewrite what the suite sent, and a recorded run replays request for request.
 * - in: the exchange is redacted before anything judges or records it: header
 *   names and values, the URL, the response body (the tail of a body cut at the
 *   read bound dropped where a key may have been cut in two), the error message.
 *   A run and `verify`'s recomputation from the transcript therefore judge the
 *   very same bytes.
 */
import { isUtf8 } from 'node:buffer';
import { forgivingDecodes } from './decode.js';
import { PcError, TransportError } from './errors.js';
import type { Exchange, RequestSpec, Transport } from './http.js';
import { noteDecoded } from './http/body.js';
import type { Redactor } from './redact/redactor.js';
import { sha256 } from './hash.js';

declare const REDACTED_EXCHANGE: unique symbol;
/**
 * An exchange that crossed the boundary: everything it received, and the
 * credentials it sent, redacted. Only this module makes one, so evidence and
 * the checks' exchanges (`SentExchange`) cannot be built from a raw exchange.
 */
export type RedactedExchange = Exchange & { readonly [REDACTED_EXCHANGE]: true };

/** A transport whose answers crossed the boundary: a {@link RedactionBoundary}, or a replay of a transcript it wrote. */
export interface RedactedTransport {
  readonly requestsSent: number;
  send(spec: RequestSpec): Promise<RedactedExchange>;
  close(): Promise<void>;
}

/**
 * The transports vouched for: this module's boundaries, and the replayers of
 * transcripts it wrote ({@link vouchFor}). A property a caller sets cannot
 * put a transport here, so no transport given to the engine skips the door.
 */
const VOUCHED = new WeakSet<object>();

/** Marks `transport` as answering through the boundary already (core/transcript.ts `TranscriptReplayer`); not part of the package's API. */
export function vouchFor(transport: RedactedTransport): void {
  VOUCHED.add(transport);
}

/** Whether `transport` answers through the boundary already: one this module vouched for ({@link vouchFor}). */
export function isRedacted(transport: Transport | RedactedTransport): transport is RedactedTransport {
  return VOUCHED.has(transport);
}

/** The digest that names a request in messages: sha256 of its method, path and body. */
export function requestDigest(spec: Pick<RequestSpec, 'method' | 'path' | 'body'>): string {
  const body =
    spec.body === undefined ? '' : Buffer.from(typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body).toString('base64');
  return `sha256:${sha256(JSON.stringify([spec.method, spec.path, body]))}`;
}

/** Finds digests of withheld requests in text (a check's reason in report.json). */
export const WITHHELD_DIGEST = /it would have carried the API key \(request (sha256:[0-9a-f]{64})\)/g;

/** A request the suite generated that would have carried the key; it was not sent. */
export class KeyInRequestError extends PcError {
  constructor(readonly digest: string) {
    super(
      'PC_ERR_KEY_IN_REQUEST',
      `a request the suite generated was not sent: it would have carried the API key (request ${digest}); the key is short enough to occur in generated data, use a longer one`,
    );
    this.name = 'KeyInRequestError';
  }
}

/** True when the request carries a secret of `redactor` outside its Authorization header. */
export function requestLeaks(spec: RequestSpec, redactor: Redactor): boolean {
  if (redactor.leaks(spec.path)) return true;
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    if (redactor.leaks(name)) return true;
    if (name.toLowerCase() !== 'authorization' && redactor.leaks(value)) return true;
  }
  if (spec.body === undefined) return false;
  const bytes = typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body;
  return redactor.redactBytes(bytes) !== bytes;
}

/** Header names and values redacted; names that redact alike joined as HTTP joins repeated headers. */
export function redactHeaders(redactor: Redactor, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const n = redactor.redact(name);
    const v = redactor.redact(value);
    out[n] = Object.hasOwn(out, n) ? `${out[n]}, ${v}` : v;
  }
  return out;
}

/** `exchange` with everything it received and the credentials it sent redacted (see the module comment). */
export function redactExchange(exchange: Exchange, redactor: Redactor): RedactedExchange {
  const { request, response, error } = exchange;
  const out: Exchange = {
    seq: exchange.seq,
    request: {
      method: request.method,
      url: redactor.redact(request.url),
      headers: redactHeaders(redactor, request.headers),
      ...(request.body === undefined ? {} : { body: redactor.redactBytes(request.body) }),
    },
    durationMs: exchange.durationMs,
  };
  if (response) {
    const body = redactor.redactBytesRead(response.body, { complete: !response.truncated });
    // The text the body was scanned as, unchanged, is the one its parse would decode again (core/http/body.ts).
    if (body.text !== undefined && !response.truncated) noteDecoded(body.bytes, body.text);
    out.response = {
      status: response.status,
      headers: redactHeaders(redactor, response.headers),
      body: unseen(response, redactor) ?? body.bytes,
      truncated: response.truncated,
    };
  }
  if (error) out.error = new TransportError(error.code as ConstructorParameters<typeof TransportError>[0], redactor.redact(error.message));
  return out as RedactedExchange;
}

/**
 * What stands for a response body kept coded (a coding the suite does not
 * decode, a damaged stream) or of bytes that are no text, when it may hide a
 * secret the redactor cannot see: decoded as forgivingly as it can be
 * (core/decode.ts `forgivingDecodes`), it holds one, or it cannot be read at
 * all while it says it is coded. Undefined when the body can go on as it is
 * (scanned as text already). A report, evidence or a certification's
 * transcript never carries bytes a reader could decompress into a secret.
 */
function unseen(response: NonNullable<Exchange['response']>, redactor: Redactor): Uint8Array | undefined {
  const failed = response.decoding?.error;
  if (failed === undefined && (response.body.length < 8 || isUtf8(response.body))) return undefined;
  const { outputs, readable } = forgivingDecodes(response.body);
  const holds = outputs.some((bytes) => redactor.redactBytes(bytes) !== bytes);
  if (!holds && readable && (outputs.length > 0 || failed === undefined)) return undefined;
  const what =
    failed === undefined ? 'bytes that are no text' : `a ${response.decoding!.coding}-coded body the suite could not decode (${failed})`;
  return Buffer.from(
    `<withheld: ${what}, ${response.body.length} bytes; ${holds ? 'decoded otherwise, it holds a secret' : 'it cannot be read, so a secret in it could not be seen'}>`,
  );
}

/**
 * An exchange read back from a transcript (core/transcript.ts), which this
 * boundary redacted when it was recorded: the recorded answer is kept byte
 * for byte (a recomputation judges the very bytes the run judged); the
 * request, the recomputation's own, is redacted as any.
 */
export function recordedExchange(exchange: Exchange, redactor: Redactor): RedactedExchange {
  const { request } = redactExchange({ ...exchange, response: undefined, error: undefined }, redactor);
  return { ...exchange, request } as RedactedExchange;
}

/** A transport behind the redaction boundary (see the module comment). */
export class RedactionBoundary implements RedactedTransport {
  constructor(
    readonly inner: Transport,
    readonly redactor: Redactor,
  ) {
    vouchFor(this);
  }

  get requestsSent(): number {
    return this.inner.requestsSent;
  }

  async send(spec: RequestSpec): Promise<RedactedExchange> {
    if (requestLeaks(spec, this.redactor)) throw new KeyInRequestError(requestDigest(spec));
    return this.admit(await this.inner.send(spec));
  }

  /** An exchange another sender made (the load phase's, on its own connections) let through this door: redacted as the rest. */
  admit(exchange: Exchange): RedactedExchange {
    return redactExchange(exchange, this.redactor);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
