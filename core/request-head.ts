/**
 * A request head as a client of core/fingerprints.ts writes it. undici writes
 * every head the same way: `host` and `connection` first, in lower case, then
 * the request's headers as given, then `content-length`; a server can tell the
 * suite by that alone. {@link shapeHead} reorders and recases the header
 * lines of one head as the fingerprint says; {@link fingerprintHeaders} gives
 * the headers the client adds by itself, which the HTTP client puts into the
 * request (so an exchange records what was sent) before undici writes it.
 *
 * Only names move or change case: no value is changed and no header the
 * request carries is dropped, save undici's own `connection` line where the
 * client writes none (HTTP/1.1 connections persist without it).
 */
import type { Fingerprint, HeadLine } from './fingerprints.js';

/** `content-type` as `Content-Type`; Go's canonical form (CanonicalMIMEHeaderKey). */
export function titleCase(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** The default a head line adds by itself, and when: undefined for a line that only places a header. */
function defaultOf(line: HeadLine): { name: string; value: string; withBody: boolean } | undefined {
  if (typeof line === 'string') return undefined;
  return { name: line[0], value: line[1], withBody: line.length === 3 };
}

/**
 * The headers `fingerprint`'s client adds by itself to a request (names in
 * lower case, values with `{origin}` filled in): those of its `[name, value]`
 * head lines, the `with-body` ones only when the request has a body.
 * `Host`, `Connection` and `Content-Length` are left to undici, which frames
 * the exchange with them.
 */
export function fingerprintHeaders(fingerprint: Fingerprint, origin: string, hasBody: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fingerprint.head) {
    const added = defaultOf(line);
    if (!added || (added.withBody && !hasBody)) continue;
    const name = added.name.toLowerCase();
    if (name === 'host' || name === 'connection' || name === 'content-length') continue;
    out[name] = added.value.replaceAll('{origin}', origin);
  }
  return out;
}

/**
 * `head` (a request line, header lines, and the blank line, as undici writes
 * one in a single write) with its header lines in `fingerprint`'s order and
 * casing: each named line where the fingerprint puts it, cased as it writes
 * it; the request's other headers where `'*'` is (in their order, or sorted
 * when `others` says so), cased by `casing`; a `[name, value]` default only
 * when the request lacks that header (`{origin}` is `origin`, `with-body` ones
 * only with a body). undici's `connection` line is dropped where the client
 * writes none, and spelled as the client spells it when it says the same.
 * A text that is not a whole request head is returned as it is.
 */
export function shapeHead(head: string, fingerprint: Fingerprint, origin: string): string {
  if (!head.endsWith('\r\n\r\n')) return head;
  const rows = head.slice(0, -4).split('\r\n');
  const requestLine = rows[0]!;
  if (!REQUEST_LINE.test(requestLine)) return head;
  const plan = planOf(fingerprint);
  /** The request's lines by name (lower case), each name's in their order. */
  const byName = new Map<string, string[]>();
  const others: { key: string; value: string }[] = [];
  /** Headers of {@link Plan.appPlaced} the application set: among its own, and no default in their place. */
  const moved = new Set<string>();
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i]!;
    const colon = row.indexOf(':');
    if (colon <= 0) return head;
    const key = row.slice(0, colon).toLowerCase();
    const value = row.slice(colon + 1).replace(/^[ \t]+/, '');
    // undici's own connection line, where the client writes none, is dropped: a header of the exchange, not of the request.
    // A header the client adds unless the application set one, set by the application: among the application's own.
    const appSet = plan.appPlaced.has(key) && value !== plan.defaults.get(key);
    if (appSet) moved.add(key);
    if (plan.named.has(key) && !appSet) {
      const values = byName.get(key);
      if (values) values.push(value);
      else byName.set(key, [value]);
    } else if (key !== 'connection') others.push({ key, value });
  }
  const contentLength = byName.get('content-length')?.[0] ?? others.find((l) => l.key === 'content-length')?.value;
  const hasBody =
    (contentLength !== undefined && contentLength !== '0') ||
    byName.has('transfer-encoding') ||
    others.some((l) => l.key === 'transfer-encoding');
  if (fingerprint.others === 'sorted') others.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const out: string[] = [requestLine];
  const pushOthers = () => {
    for (const l of others) out.push(`${fingerprint.casing === 'title' ? titleCase(l.key) : l.key}: ${l.value}`);
  };
  for (const line of plan.lines) {
    if (line === '*') {
      pushOthers();
      continue;
    }
    const own = byName.get(line.key);
    if (own) {
      // undici's connection line says the same as the client's in other letters (`keep-alive`, OkHttp's `Keep-Alive`).
      for (const value of own)
        out.push(
          `${line.name}: ${line.key === 'connection' && line.added !== undefined && value.toLowerCase() === line.added.toLowerCase() ? line.added : value}`,
        );
    } else if (line.added !== undefined && !moved.has(line.key) && (!line.withBody || hasBody)) {
      out.push(`${line.name}: ${line.added.replaceAll('{origin}', origin)}`);
    }
  }
  if (!plan.hasRest) pushOthers();
  return `${out.join('\r\n')}\r\n\r\n`;
}

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.[01]$/;

/** A fingerprint's head lines, read once: each named line's key, and the names it places. */
interface Plan {
  lines: readonly ('*' | { name: string; key: string; added: string | undefined; withBody: boolean })[];
  named: ReadonlySet<string>;
  hasRest: boolean;
  /** The fingerprint's `appPlaced`, and the default of each named line that adds one. */
  appPlaced: ReadonlySet<string>;
  defaults: ReadonlyMap<string, string>;
}

const plans = new WeakMap<Fingerprint, Plan>();

function planOf(fingerprint: Fingerprint): Plan {
  let plan = plans.get(fingerprint);
  if (!plan) {
    const lines = fingerprint.head.map((line) => {
      if (line === '*') return '*' as const;
      const added = defaultOf(line);
      const name = typeof line === 'string' ? line : line[0];
      return { name, key: name.toLowerCase(), added: added?.value, withBody: added?.withBody ?? false };
    });
    plan = {
      lines,
      named: new Set(lines.flatMap((l) => (l === '*' ? [] : [l.key]))),
      hasRest: lines.includes('*'),
      appPlaced: new Set(fingerprint.appPlaced ?? []),
      defaults: new Map(lines.flatMap((l) => (l === '*' || l.added === undefined ? [] : [[l.key, l.added] as const]))),
    };
    plans.set(fingerprint, plan);
  }
  return plan;
}
