/** product.json, the vendor's description of what is certified, validated against spec/product-schema.ts. */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { type Product, productSchema } from '../spec/product-schema.js';
import { validatorFor } from '../spec/validate.js';

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

// Worded from the schema's descriptions, for the vendor who wrote the file.
function describeProductError(error: ErrorObject | undefined): string {
  const properties: Record<string, { description: string }> = productSchema.properties;
  const known = Object.keys(properties).join(', ');
  if (!error) return 'invalid';
  if (error.keyword === 'required') {
    const key = String(error.params.missingProperty);
    return `key "${key}" is missing: it must be ${properties[key]?.description ?? 'given'}`;
  }
  if (error.keyword === 'additionalProperties') return `key ${JSON.stringify(String(error.params.additionalProperty))} is not known (known keys: ${known})`;
  const key = error.instancePath.split('/')[1];
  if (key === undefined || key === '') return `must be a JSON object with the keys ${productSchema.required.join(', ')} (and optionally description)`;
  const name = key.replace(/~1/g, '/').replace(/~0/g, '~');
  return `key "${name}" must be ${properties[name]?.description ?? 'valid'}`;
}
