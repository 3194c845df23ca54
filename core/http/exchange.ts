/**
 * What a request and its answer are, as data (core/http.ts sends them, a
 * transcript replays them): the request relative to the base URL, the
 * response as received, the exchange of both, and the transport the engine
 * sends through.
 */
import type { Decoding } from '../decode.js';
import type { TransportError } from '../errors.js';
import type { FingerprintId } from '../fingerprints.js';

/** The methods the interface's operations use. */
export type Method = 'GET' | 'POST';

/** A request relative to the base URL (`/pets?limit=5`). */
export interface RequestSpec {
  method: Method;
  /** Path and query relative to the base URL, starting with `/`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * Sent on a new connection of its own, closed after it: a request sent again
   * after a connection it was sent on was closed under it ({@link closedWhenIdle}).
   * A recorded transcript ignores it.
   */
  fresh?: boolean;
  /**
   * The client shape it is sent under (core/fingerprints.ts): that client's
   * headers, header order and casing, and connection habit. Default: the
   * run's choice (the tool's own shape unless the run was given fingerprints).
   */
  fingerprint?: FingerprintId;
}

/** A response as received; `body` is at most `maxBodyBytes` long. */
export interface ResponseRecord {
  status: number;
  /** Header names in lower case; repeated headers joined with `, ` (`set-cookie` kept apart). */
  headers: Record<string, string>;
  body: Uint8Array;
  /** True when the body was longer than the bound and the rest was not read. */
  truncated: boolean;
  /** Set when the body came with a content coding: `body` is then the decoded bytes (core/decode.ts). */
  decoding?: Decoding;
}

/** One request and what came back: a response, or the reason there was none. */
export interface Exchange {
  /** Order of sending within the run, from 1. */
  seq: number;
  request: { method: Method; url: string; headers: Record<string, string>; body?: Uint8Array };
  response?: ResponseRecord;
  error?: TransportError;
  durationMs: number;
}

/** What the engine sends requests through: the HTTP client, or (to recompute verdicts) a recorded transcript. */
export interface Transport {
  send(spec: RequestSpec): Promise<Exchange>;
  /** Requests sent so far. */
  readonly requestsSent: number;
  close(): Promise<void>;
}
