/**
 * A request as the application of the client it goes as writes it
 * (core/clients.ts): its JSON body in that application's layout, its query
 * in its order, its Accept when it sets one. Only what a check gave as a
 * value (`SendOptions.written`) is written again; bytes a check wrote itself
 * (a body the document refuses, a query it spelled) go as they are.
 */
import { type AppHabits, orderedQuery, writeJson } from '../../core/clients.js';
import type { SendOptions } from '../check.js';

type Parts = Pick<SendOptions, 'path' | 'body' | 'headers' | 'written'>;

/**
 * Bodies longer than this, as the suite writes them or as an application
 * would, go as the suite writes them: a body's size is what some checks
 * probe (a name of 65 536 code points), and a server may refuse a body past
 * a size of its own (413), which a layout that escapes every non-ASCII
 * character would then reach for one client and not another.
 */
const MAX_REWRITTEN_BYTES = 4096;

/**
 * `request`'s path, body and headers as `app` writes them, the `salt`-th call
 * it makes (what differs from call to call, a request id); as they are when
 * there is no application (the suite's own writing).
 */
export function asWritten(request: Parts, app: AppHabits | undefined, salt = 0): Pick<SendOptions, 'path' | 'body' | 'headers'> {
  const { path, body, headers, written } = request;
  if (!app) return { path, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) };
  const query = written?.query;
  const fits = (text: string | Uint8Array | undefined) => text !== undefined && Buffer.byteLength(text) <= MAX_REWRITTEN_BYTES;
  // A body already past the bound is not written again only to be dropped (a name of 65 536 code points).
  const rewritten = written?.json !== undefined && fits(body) ? writeJson(written.json, app.json) : undefined;
  const json = fits(rewritten) ? rewritten : undefined;
  const asks = app.accept !== undefined && !Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'accept');
  // Its own headers first, as an application sets them on every call; the check's own win.
  const own = { ...app.stamp(salt), ...(asks ? { accept: app.accept! } : {}), ...headers };
  return {
    path: query
      ? `${path.slice(0, path.indexOf('?'))}?${new URLSearchParams(orderedQuery(query, app) as [string, string][]).toString()}`
      : path,
    ...(json !== undefined ? { body: json } : body === undefined ? {} : { body }),
    ...(Object.keys(own).length > 0 ? { headers: own } : {}),
  };
}
