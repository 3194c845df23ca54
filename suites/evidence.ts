/**
 * Turns exchanges into evidence: bounded excerpts, the key redacted (here, once,
 * so no reporter has to), and a curl command that sends the same bytes.
 */
import type { Exchange } from '../core/http.js';
import { KEY_ENV, Redactor, swapCase } from '../core/redact.js';
import type { Evidence } from './model.js';

/** Characters of a body kept in evidence. */
export const BODY_EXCERPT_CHARS = 4096;

const lossyUtf8 = new TextDecoder('utf-8', { fatal: false });

/** Builds evidence for exchanges of one run. */
export class EvidenceFactory {
  readonly #redactor: Redactor;
  readonly #shell: Redactor;

  /**
   * @param redactor replaces the key and its variants with placeholders
   * @param key the API key, to write curl commands that expand `$PETSTORE_API_KEY` instead
   */
  constructor(redactor: Redactor, key: string) {
    this.#redactor = redactor;
    this.#shell = new Redactor();
    if (key) {
      const v = `\${${KEY_ENV}}`;
      this.#shell.add(key, v);
      this.#shell.add(Buffer.from(`conformance:${key}`).toString('base64'), `$(printf 'conformance:%s' "${v}" | base64 -w0)`);
      this.#shell.add(Buffer.from(key).toString('base64'), `$(printf '%s' "${v}" | base64 -w0)`);
      if (key.length > 1) this.#shell.add(key.slice(0, -1), `\${${KEY_ENV}%?}`);
      this.#shell.add(swapCase(key), `\${${KEY_ENV}~~}`);
    }
  }

  /** Redacts any text the suite writes. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  of(exchange: Exchange): Evidence {
    const { request, response } = exchange;
    const evidence: Evidence = {
      seq: exchange.seq,
      request: {
        method: request.method,
        url: this.redact(request.url),
        headers: this.#headers(request.headers),
        bodyBytes: request.body?.length ?? 0,
        ...(request.body ? { body: this.#excerpt(request.body) } : {}),
      },
      durationMs: Math.round(exchange.durationMs * 10) / 10,
      curl: this.curl(exchange),
    };
    if (response) {
      evidence.response = {
        status: response.status,
        headers: this.#headers(response.headers),
        body: this.#excerpt(response.body),
        bodyBytes: response.body.length,
        truncated: response.truncated,
      };
    }
    if (exchange.error) evidence.transportError = this.redact(exchange.error.message);
    return evidence;
  }

  /** A bash command that sends the same request, key taken from $PETSTORE_API_KEY. */
  curl(exchange: Exchange): string {
    const { request } = exchange;
    const parts = ['curl', '-sS', '-i', '-X', request.method, shellQuote(request.url)];
    for (const [name, value] of Object.entries(request.headers)) {
      if (name === 'user-agent' || name === 'accept') continue;
      const expanded = this.#shell.redact(value);
      parts.push('-H', expanded === value ? shellQuote(`${name}: ${value}`) : `"${name}: ${expanded}"`);
    }
    if (request.body) parts.push('--data-binary', shellQuote(request.body));
    // Belt and braces: nothing of the key may survive in a command either.
    return this.redact(parts.join(' '));
  }

  #headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[name] = this.redact(value);
    return out;
  }

  #excerpt(bytes: Uint8Array): string {
    const text = lossyUtf8.decode(bytes.subarray(0, BODY_EXCERPT_CHARS * 4));
    const cut = text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}… [${bytes.length} bytes in all]` : text;
    return this.redact(cut);
  }
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
