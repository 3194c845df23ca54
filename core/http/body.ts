/**
 * A response body (core/http.ts): read within a bound, its headers flattened,
 * and parsed as JSON once (strict UTF-8, complete, well-formed).
 */
import { decodeUtf8, type Json, JsonTooLargeError, parseJson } from '../json.js';
import type { ResponseRecord } from './exchange.js';

/** Reads `stream` up to `max` bytes; past that, the rest is not read (the stream is destroyed) and the body is `truncated`. */
export async function readBounded(
  stream: AsyncIterable<Buffer> & { destroy(): void },
  max: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const room = max - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      stream.destroy();
      return { bytes: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated: false };
}

/** Header names in lower case; repeated headers joined with `, `. */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * What a response body is, as JSON. `notParsed`: the body is too large to
 * parse (core/json.ts `MAX_JSON_TOKENS`); it is judged, as a body past the
 * read bound is, on its first `notParsed` bytes.
 */
export type BodyJson = { ok: true; value: Json } | { ok: false; reason: string; notParsed?: number };

const parsedBodies = new WeakMap<ResponseRecord, BodyJson>();

/**
 * Bodies already decoded as UTF-8 (a leading BOM kept) by the one that read them whole, the redaction boundary
 * (core/boundary.ts): the text is taken, and forgotten, by the parse. Bytes are never changed once read.
 */
const decodedBodies = new WeakMap<Uint8Array, string>();

/** Notes that `bytes`, a complete body, decode as UTF-8 to `text` (a leading BOM kept), for {@link bodyJson} to take. */
export function noteDecoded(bytes: Uint8Array, text: string): void {
  decodedBodies.set(bytes, text);
}

/** The body as UTF-8 text (a leading BOM dropped), or undefined when it is not UTF-8; decoded once. */
function bodyText(body: Uint8Array): string | undefined {
  const noted = decodedBodies.get(body);
  if (noted === undefined) return decodeUtf8(body);
  decodedBodies.delete(body);
  return noted.charCodeAt(0) === 0xfeff ? noted.slice(1) : noted;
}

/** The response body parsed as JSON (memoised): strict UTF-8, complete, well-formed. */
export function bodyJson(response: ResponseRecord): BodyJson {
  let parsed = parsedBodies.get(response);
  if (!parsed) {
    parsed = parseBody(response);
    parsedBodies.set(response, parsed);
  }
  return parsed;
}

function parseBody(response: ResponseRecord): BodyJson {
  const coded = response.decoding;
  if (coded?.error)
    return {
      ok: false,
      reason: `a ${coded.coding}-coded body of ${coded.received} bytes that the suite could not decode (${coded.error})`,
    };
  if (coded?.cut)
    return {
      ok: false,
      reason: `a ${coded.coding}-coded body that decodes to more than ${response.body.length} bytes (decoding stopped there)`,
    };
  if (response.truncated) return { ok: false, reason: `a body longer than ${response.body.length} bytes (not read to its end)` };
  if (response.body.length === 0) return { ok: false, reason: 'an empty body' };
  const text = bodyText(response.body);
  if (text === undefined) return { ok: false, reason: 'a body that is not valid UTF-8' };
  const json = text.replace(/^\uFEFF/, '');
  try {
    return { ok: true, value: parseJson(json) };
  } catch (error) {
    if (!(error instanceof JsonTooLargeError)) return { ok: false, reason: `a body that is not JSON (${(error as Error).message})` };
    const bom = response.body.length - Buffer.byteLength(json);
    return { ok: false, reason: `a body of ${error.message}`, notParsed: bom + Buffer.byteLength(json.slice(0, error.at)) };
  }
}
