/**
 * JSON Schema (2020-12) of one line of transcript.jsonl, the record of every
 * exchange of a certification run (core/transcript.ts writes it; `verify`
 * answers the recomputation's requests from it). `npm run gen` writes it to
 * spec/transcript.schema.json.
 */
import { TRANSPORT_ERROR_CODES } from '../core/transcript.js';

const headers = { type: 'object', additionalProperties: { type: 'string' }, description: 'Header names and values as sent or received, the key redacted' };
// Base64 by its alphabet only: the exact pattern (groups of four) makes the regular expression engine recurse once per group, which overflows its stack on a body of a few megabytes.
const base64 = { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$', contentEncoding: 'base64' };

export const transcriptEntrySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/transcript.schema.json',
  title: 'petstore-conformance transcript entry (one line of transcript.jsonl)',
  type: 'object',
  required: ['seq', 'meta', 'request', 'durationMs'],
  additionalProperties: false,
  // An exchange has a response or an error, exactly one (each named in its branch, as ajv's strict mode asks of `required`).
  oneOf: [
    { properties: { response: true }, required: ['response'] },
    { properties: { error: true }, required: ['error'] },
  ],
  properties: {
    seq: { type: 'integer', minimum: 1, description: 'Order of sending within the run, from 1; unique within the transcript' },
    meta: {
      type: 'object',
      required: ['operation', 'auth', 'check'],
      additionalProperties: false,
      properties: { operation: { type: 'string' }, auth: { type: 'string' }, check: { type: 'string', description: '`preflight`, a check id, or `load.<profile>.…`' } },
    },
    request: {
      type: 'object',
      required: ['method', 'url', 'headers'],
      additionalProperties: false,
      properties: { method: { enum: ['GET', 'POST'] }, url: { type: 'string' }, headers, body: { ...base64, description: 'base64 of the bytes sent; absent when there was no body' } },
    },
    response: {
      type: 'object',
      required: ['status', 'headers', 'body', 'truncated'],
      additionalProperties: false,
      properties: { status: { type: 'integer' }, headers, body: { ...base64, description: 'base64 of the bytes received, at most the bound' }, truncated: { type: 'boolean' } },
    },
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { enum: [...TRANSPORT_ERROR_CODES] }, message: { type: 'string' } },
    },
    durationMs: { type: 'number', minimum: 0 },
  },
} as const;
