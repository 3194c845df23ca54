/**
 * What a certificate binds, compared with what its reader expects: the
 * product (`verify --product`) and the base URL (`verify --base-url`). A
 * bundle presented for another product or origin says so, field by field.
 */
import type { Product } from '../spec/product-schema.js';

/** The fields of product.json that name the product; the description is free text and binds nothing. */
const BOUND_PRODUCT_FIELDS = ['name', 'version', 'contact'] as const;

/** The product as the manifest names it. */
export type BoundProduct = Pick<Product, (typeof BOUND_PRODUCT_FIELDS)[number]>;

/** One field that differs: its value in the bundle and in what was given. */
export interface Difference<Field extends string = string> {
  field: Field;
  bundle: string;
  given: string;
}

/** The parts of a base URL compared: scheme, host, port (the scheme's default when none is written), path. */
export type UrlPart = 'scheme' | 'host' | 'port' | 'path';

/** The fields of {@link BOUND_PRODUCT_FIELDS} whose values differ, in that order. */
export function productDifferences(bundle: BoundProduct, given: BoundProduct): Difference<keyof BoundProduct>[] {
  return BOUND_PRODUCT_FIELDS.filter((field) => bundle[field] !== given[field]).map((field) => ({
    field,
    bundle: bundle[field],
    given: given[field],
  }));
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * A base URL as compared: scheme and host as the WHATWG URL parser writes
 * them (lower case, the host's IDN in punycode), the port made explicit, and
 * the path without its trailing slashes (`/` and `` alike). Undefined when
 * the text is no absolute URL.
 */
function partsOf(text: string): Record<UrlPart, string> | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return {
    scheme: url.protocol.replace(/:$/, ''),
    host: url.hostname,
    port: url.port || (DEFAULT_PORTS[url.protocol] ?? ''),
    path: url.pathname.replace(/\/+$/, ''),
  };
}

/**
 * The parts in which the bundle's base URL (manifest.json `target`) and the
 * one given differ; empty when they name the same origin and path. A bundle's
 * target that is no URL differs in every part.
 */
export function baseUrlDifferences(bundle: string, given: string): Difference<UrlPart>[] {
  const ours = partsOf(given);
  if (!ours) throw new TypeError('the given base URL must be an absolute URL');
  const theirs = partsOf(bundle);
  const parts: UrlPart[] = ['scheme', 'host', 'port', 'path'];
  return parts
    .filter((part) => theirs?.[part] !== ours[part])
    .map((part) => ({ field: part, bundle: theirs?.[part] ?? bundle, given: ours[part] }));
}
