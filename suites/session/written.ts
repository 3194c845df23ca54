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
 * `request`'s path, body and headers as `app` writes them, the `salt`-th call
 * it makes (what differs from call to call, a request id); as they are when
 * there is no application (the suite's own writing).
 */
export function asWritten(request: Parts, app: AppHabits | undefined, salt = 0): Pick<SendOptions, 'path' | 'body' | 'headers'> {
  const { path, body, headers, written } = request;
  if (!app) return { path, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) };
  const query = written?.query;
  const json = written?.json;
  const asks = app.accept !== undefined && !Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'accept');
  // Its own headers first, as an application sets them on every call; the check's own win.
  const own = { ...app.stamp(salt), ...(asks ? { accept: app.accept! } : {}), ...headers };
  return {
    path: query
      ? `${path.slice(0, path.indexOf('?'))}?${new URLSearchParams(orderedQuery(query, app) as [string, string][]).toString()}`
      : path,
    ...(json !== undefined ? { body: writeJson(json, app.json) } : body === undefined ? {} : { body }),
    ...(Object.keys(own).length > 0 ? { headers: own } : {}),
  };
}
