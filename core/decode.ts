/**
 * Content codings (RFC 9110 §8.4): a response body sent with
 * `Content-Encoding: gzip`, `x-gzip`, `deflate` or `br` (or a list of them, in
 * the order applied) is decoded before it is judged, within the same bound as
 * any body: decoding stops at the bound, and the body is then `truncated` with
 * the reason said (a decompression bomb is cut there, never inflated).
 *
 * The suite sends no `Accept-Encoding` (no preference, RFC 9110 §12.5.3), so a
 * target may still code its answers; node:zlib decodes them. A coding the
 * suite does not know (`compress`, `zstd`…) leaves the body as received, and
 * says so.
 */
import type { Transform } from 'node:stream';
import {
  brotliDecompressSync,
  constants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';

/** What decoding did, kept beside the response. */
export interface Decoding {
  /** The codings as the header listed them, lower case (`gzip`, `deflate, br`). */
  coding: string;
  /** Bytes received, before decoding. */
  received: number;
  /** Decoding stopped at the bound: the decoded body is longer than what is kept. */
  cut: boolean;
  /** Why the body could not be decoded (it is then kept as received). */
  error?: string;
}

/** The codings the suite decodes. */
export const DECODED_CODINGS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

/** Codings in a `Content-Encoding` value, in the order they were applied; `identity` dropped. */
export function codingsOf(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** Codings stacked deeper than this are not decoded (no real server stacks more than two). */
const MAX_CODINGS = 4;

/**
 * Decodes `body` as `contentEncoding` says, keeping at most `max` bytes.
 * `receivedTruncated`: the body as received was already cut at the bound (its
 * end is missing, so the decoder stops where the bytes do, without error).
 * Returns undefined when there is no coding to undo.
 */
export async function decodeBody(
  body: Uint8Array,
  contentEncoding: string | undefined,
  max: number,
  receivedTruncated: boolean,
): Promise<{ body: Uint8Array; truncated: boolean; decoding: Decoding } | undefined> {
  const codings = codingsOf(contentEncoding);
  if (codings.length === 0) return undefined;
  const coding = codings.join(', ');
  const keep = (error: string) => ({ body, truncated: receivedTruncated, decoding: { coding, received: body.length, cut: false, error } });
  const unknown = codings.find((c) => !(DECODED_CODINGS as readonly string[]).includes(c));
  if (unknown) return keep(`the suite does not decode the ${unknown} coding`);
  if (codings.length > MAX_CODINGS) return keep(`${codings.length} codings stacked; the suite decodes at most ${MAX_CODINGS}`);
  let data: Uint8Array = body;
  let cut = false;
  for (const c of [...codings].reverse()) {
    const step = await decodeOne(data, c, max, receivedTruncated || cut);
    if (step.error) return keep(`${c}: ${step.error}`);
    data = step.out;
    cut = cut || step.cut;
  }
  return { body: data, truncated: receivedTruncated || cut, decoding: { coding, received: body.length, cut } };
}

function decoderFor(coding: string, first: Uint8Array, partial: boolean): Transform {
  // A cut input ends mid-stream: flush what was decoded instead of failing on the missing end.
  const flush = partial ? { finishFlush: constants.Z_SYNC_FLUSH } : {};
  if (coding === 'br') return createBrotliDecompress(partial ? { finishFlush: constants.BROTLI_OPERATION_FLUSH } : {});
  if (coding === 'deflate') {
    // "deflate" is the zlib format (RFC 9110 §8.4.1.2), but some servers send raw deflate: tell them apart by the zlib header.
    const zlibHeader = first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0;
    return zlibHeader ? createInflate(flush) : createInflateRaw(flush);
  }
  return createGunzip(flush);
}

/** One coding undone, keeping at most `max` bytes of output. */
function decodeOne(
  input: Uint8Array,
  coding: string,
  max: number,
  partial: boolean,
): Promise<{ out: Uint8Array; cut: boolean; error?: string }> {
  return new Promise((resolve) => {
    const decoder = decoderFor(coding, input, partial);
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: { cut: boolean; error?: string }) => {
      if (done) return;
      done = true;
      resolve({ out: Buffer.concat(chunks, size), ...result });
    };
    decoder.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = max - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = max;
        // The bound: nothing more is inflated.
        decoder.destroy();
        finish({ cut: true });
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    decoder.on('end', () => finish({ cut: false }));
    decoder.on('error', (error: Error) => finish({ cut: false, error: error.message }));
    decoder.end(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
  });
}

/**
 * Bytes a forgiving decode may produce, at most, as a body is read (1 MiB): a bomb is not inflated, and what it would
 * hide past that is taken as unseen; each output is then redacted, which a hostile one makes cost (~0.25 s a MiB).
 */
const FORGIVING_MAX = 1024 * 1024;

/** The start of a zstd frame (RFC 8878 §3.1.1): a coding node:zlib of Node 20 cannot undo. */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/**
 * What a body the suite kept as received (a coding it does not decode, a
 * damaged stream, bytes that are no text) says once decoded by a reader more
 * forgiving than {@link decodeBody}: gzip, zlib, raw deflate (also after a
 * gzip header, with no checksum read) and brotli, each tried, each output cut
 * where its input stops making sense. `readable: false` when the bytes are
 * in a coding nothing here reads (zstd), or one would inflate past
 * {@link FORGIVING_MAX}: whatever they hold is unseen.
 */
export function forgivingDecodes(body: Uint8Array): { outputs: Uint8Array[]; readable: boolean } {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (ZSTD_MAGIC.every((b, i) => bytes[i] === b)) return { outputs: [], readable: false };
  const flush = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: FORGIVING_MAX };
  const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const attempts: (() => Buffer)[] = [
    () => gunzipSync(bytes, flush),
    () => inflateSync(bytes, flush),
    () => inflateRawSync(bytes, flush),
    () => brotliDecompressSync(bytes, { finishFlush: constants.BROTLI_OPERATION_FLUSH, maxOutputLength: FORGIVING_MAX }),
    // A gzip member whose checksum or length is wrong: its deflate stream alone (RFC 1952 §2.3, no optional fields).
    ...(gzipped ? [() => inflateRawSync(bytes.subarray(10), flush)] : []),
  ];
  const outputs: Buffer[] = [];
  for (const attempt of attempts) {
    try {
      const out = attempt();
      // Two readers of one stream (gunzip, and raw deflate after its header) give the same bytes: looked at once.
      if (out.length > 0 && !outputs.some((seen) => seen.equals(out))) outputs.push(out);
    } catch (error) {
      if (error instanceof RangeError) return { outputs: [], readable: false };
    }
  }
  return { outputs, readable: true };
}
