/** product.json, the vendor's description of what is certified, validated against spec/product-schema.ts. */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { type Product, productSchema } from '../spec/product-schema.js';
import { schemaProblem, validatorFor } from '../spec/validate.js';

/**
 * Parses and validates a product description against spec/product-schema.ts.
 * Returns the product, or the reason it is refused, in one line naming the key.
 */
export function checkProduct(text: string): { product: Product } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (error) {
    return { error: `not JSON (${(error as Error).message.split('\n')[0]})` };
  }
  const validate = validatorFor<Product>(productSchema);
  if (validate(value)) return { product: value };
  return { error: describeProductError(validate.errors?.[0]) };
}

// The one schema-error wording (spec/validate.ts), then what the key must be, from the schema's descriptions, for the vendor who wrote the file.
function describeProductError(error: ErrorObject | undefined): string {
  const properties: Record<string, { description: string }> = productSchema.properties;
  if (!error) return 'invalid';
  const { path, message } = schemaProblem(error);
  const key = path.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
  if (!key) return `must be a JSON object with the keys ${productSchema.required.join(', ')} (and optionally description)`;
  if (error.keyword === 'additionalProperties') return `${path} ${message} (known keys: ${Object.keys(properties).join(', ')})`;
  return `${path} ${message}: it must be ${properties[key]?.description ?? 'valid'}`;
}
