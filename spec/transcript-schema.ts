/**
 * JSON Schema (2020-12) of transcript.har, the record of every exchange of a
 * certification run: an HTTP Archive (HAR 1.2) whose entries carry the
 * suite's own fields, prefixed `_` (core/transcript.ts writes it; `verify`
 * answers the recomputation's requests from it). Stricter than HAR itself:
 * it takes what the suite writes and nothing else. `npm run gen` writes it to
 * spec/transcript.schema.json.
 */
import { TRANSPORT_ERROR_CODES } from '../core/transcript.js';

const text = { type: 'string' };
const pairs = {
  type: 'array',
  items: { type: 'object', required: ['name', 'value'], additionalProperties: false, properties: { name: text, value: text } },
};
// Base64 by its alphabet only: the exact pattern (groups of four) makes the regular expression engine recurse once per group, which overflows its stack on a body of a few megabytes.
const base64 = { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$', contentEncoding: 'base64' };
const none = { type: 'array', maxItems: 0 };
const unknownSize = { const: -1 };

const entry = {
  type: 'object',
  required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings', '_seq', '_meta'],
  additionalProperties: false,
  properties: {
    startedDateTime: { type: 'string', format: 'date-time' },
    time: { type: 'number', minimum: 0 },
    request: {
      type: 'object',
      required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
      additionalProperties: false,
      properties: {
        method: { enum: ['GET', 'POST'] },
        url: text,
        httpVersion: { const: 'HTTP/1.1' },
        cookies: none,
        headers: { ...pairs, description: 'As sent, the key redacted' },
        queryString: { ...pairs, description: 'The query of `url`, decoded, for display; `url` is what is compared' },
        postData: {
          type: 'object',
          required: ['mimeType', 'text'],
          additionalProperties: false,
          description: 'The bytes sent: UTF-8 text, or base64 when `_encoding` says so (bytes that are not UTF-8)',
          properties: { mimeType: text, text, _encoding: { const: 'base64' } },
          if: { properties: { _encoding: true }, required: ['_encoding'] },
          then: { properties: { text: base64 } },
        },
        headersSize: unknownSize,
        bodySize: { type: 'integer', minimum: 0 },
      },
    },
    response: {
      type: 'object',
      required: [
        'status',
        'statusText',
        'httpVersion',
        'cookies',
        'headers',
        'content',
        'redirectURL',
        'headersSize',
        'bodySize',
        '_truncated',
      ],
      additionalProperties: false,
      properties: {
        status: { type: 'integer', minimum: 0, description: '0 when there was no response (`_error` says why)' },
        statusText: { const: '' },
        httpVersion: { const: 'HTTP/1.1' },
        cookies: none,
        headers: pairs,
        content: {
          type: 'object',
          required: ['size', 'mimeType', 'text', 'encoding'],
          additionalProperties: false,
          properties: {
            size: { type: 'integer', minimum: 0 },
            mimeType: text,
            text: { ...base64, description: 'base64 of the bytes received, at most the bound' },
            encoding: { const: 'base64' },
          },
        },
        redirectURL: { const: '' },
        headersSize: unknownSize,
        bodySize: { type: 'integer', minimum: -1 },
        _truncated: { type: 'boolean', description: 'The body was longer than the bound; the rest was not read' },
      },
    },
    cache: { type: 'object', maxProperties: 0 },
    timings: {
      type: 'object',
      required: ['send', 'wait', 'receive'],
      additionalProperties: false,
      properties: { send: { const: 0 }, wait: { type: 'number', minimum: 0 }, receive: { const: 0 } },
    },
    _seq: { type: 'integer', minimum: 1, description: 'Order of sending within the run, from 1; unique within the transcript' },
    _meta: {
      type: 'object',
      required: ['operation', 'auth', 'check'],
      additionalProperties: false,
      properties: { operation: text, auth: text, check: { ...text, description: '`preflight`, a check id, or `load.<profile>.…`' } },
    },
    _error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      description: 'Why there was no response',
      properties: { code: { enum: [...TRANSPORT_ERROR_CODES] }, message: text },
    },
  },
  // An exchange has a response or an error, exactly one: an error's response is status 0, a response's status is not.
  if: { properties: { _error: true }, required: ['_error'] },
  then: { properties: { response: { type: 'object', properties: { status: { const: 0 } } } } },
  else: { properties: { response: { type: 'object', properties: { status: { type: 'integer', minimum: 100 } } } } },
};

export const transcriptSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/transcript.schema.json',
  title: 'petstore-conformance transcript (an HTTP Archive, HAR 1.2)',
  type: 'object',
  required: ['log'],
  additionalProperties: false,
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      additionalProperties: false,
      properties: {
        version: { const: '1.2' },
        creator: {
          type: 'object',
          required: ['name', 'version'],
          additionalProperties: false,
          properties: { name: { const: 'petstore-conformance' }, version: text },
        },
        entries: { type: 'array', items: entry },
      },
    },
  },
} as const;
