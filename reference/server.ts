/**
 * Serves a {@link Handler} over HTTP on loopback: `startReference` for the
 * embedded reference (and, with `wrap`, for the test suite's variants of it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { stringifyJson } from '../core/json.js';
import { type ApiResponse, type Handler, type ReferenceOptions, type StoredPet, createReferenceHandler } from './handler.js';

/** Request bodies above this are answered 413. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

export interface ServeOptions extends ReferenceOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Replaces the handler, e.g. with a variant that breaks a rule (the project's tests use this). */
  wrap?: (handler: Handler) => Handler;
  /** Serve https with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export interface RunningServer {
  /** Base URL, ending in the base path (`http://127.0.0.1:PORT/v1`). */
  url: string;
  port: number;
  store: Map<bigint, StoredPet>;
  close(): Promise<void>;
}

/** Starts the reference implementation. */
export async function startReference(options: ServeOptions): Promise<RunningServer> {
  const basePath = options.basePath ?? '/v1';
  const { handler: reference, store } = createReferenceHandler({ ...options, basePath });
  const handler = options.wrap ? options.wrap(reference) : reference;
  const server = serve(handler, basePath, options.tls);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}${basePath}`,
    port,
    store,
    close: () => closeServer(server),
  };
}

/** An HTTP (or, with `tls`, HTTPS) server answering requests below `basePath` with `handler`. */
export function serve(handler: Handler, basePath: string, tls?: { key: string; cert: string }): Server {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    void respond(req, handler, basePath).then(
      (answer) => write(res, answer),
      (error: unknown) =>
        write(res, {
          status: 500,
          headers: { 'content-type': 'application/json' },
          body: { code: 'internal', message: String((error as Error)?.message ?? error), status: 500 },
        }),
    );
  };
  const server = tls
    ? createHttpsServer({ ...tls, keepAliveTimeout: 5_000 }, listener)
    : createServer({ keepAliveTimeout: 5_000 }, listener);
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}

async function respond(req: IncomingMessage, handler: Handler, basePath: string): Promise<ApiResponse> {
  const body = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://reference.invalid');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const error = (status: number, code: string, message: string): ApiResponse => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: { code, message, status },
  });
  if (body === undefined) return error(413, 'body_too_large', `Request bodies are limited to ${MAX_REQUEST_BYTES} bytes.`);
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
    return error(404, 'not_found', `The interface is served below ${basePath}.`);
  return handler({ method: req.method ?? 'GET', path: url.pathname.slice(basePath.length) || '/', query: url.searchParams, headers, body });
}

async function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function write(res: ServerResponse, answer: ApiResponse): void {
  const payload =
    answer.body === undefined
      ? undefined
      : typeof answer.body === 'string' || answer.body instanceof Uint8Array
        ? answer.body
        : stringifyJson(answer.body);
  res.writeHead(answer.status, answer.headers);
  res.end(payload);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
