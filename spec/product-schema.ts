/**
 * JSON Schema (2020-12) of product.json, the vendor's description of the
 * product a certification bundle is about (`petstore-conformance certify
 * --product product.json`). `npm run gen` writes it to
 * spec/product.schema.json. Each property's `description` is the wording of
 * the one-line refusal when that key is wrong.
 */

/** What product.json holds. */
export interface Product {
  /** The product's name. */
  name: string;
  /** The version of the product that was tested. */
  version: string;
  /** Who answers for it: an email address or an http(s) URL. */
  contact: string;
  /** Free text, optional. */
  description?: string;
}

/** Largest product.json read, in bytes. */
export const MAX_PRODUCT_BYTES = 64 * 1024;

export const productSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/product.schema.json',
  title: 'petstore-conformance product description',
  type: 'object',
  required: ['name', 'version', 'contact'],
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^\\S(.*\\S)?$',
      description: 'a non-empty string of at most 200 characters, without leading or trailing spaces',
    },
    version: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      pattern: '^\\S+$',
      description: 'a non-empty string without spaces, of at most 100 characters (e.g. "2.4.1")',
    },
    contact: {
      type: 'string',
      maxLength: 500,
      anyOf: [{ format: 'email' }, { format: 'uri', pattern: '^https?://' }],
      description: 'an email address or an http(s) URL',
    },
    description: { type: 'string', maxLength: 2000, description: 'a string of at most 2000 characters' },
  },
} as const;
