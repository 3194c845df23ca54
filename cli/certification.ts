/** The files `certify` and `verify` read from their flags: the product description and the Ed25519 keys. */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { checkProduct } from '../certification/product.js';
import { UsageError } from '../core/errors.js';
import { MAX_PRODUCT_BYTES, type Product } from '../spec/product-schema.js';
import { FILE_LIMITS, readBoundedFile } from './files.js';

/** Reads and validates `--product`; a `UsageError` naming the file and the key when it is refused. */
export async function readProduct(path: string, shown: string): Promise<Product> {
  const bytes = await readBoundedFile(path, MAX_PRODUCT_BYTES, `--product ${shown}`);
  const checked = checkProduct(bytes.toString('utf8'));
  if ('error' in checked) throw new UsageError(`--product ${shown}: ${checked.error}`);
  return checked.product;
}

/** An Ed25519 key from a PEM file (`shown`: its name as given); `UsageError` naming the flag when it is not one. */
export async function readEd25519Key(path: string, shown: string, flag: '--sign-key' | '--public-key'): Promise<KeyObject> {
  const pem = (await readBoundedFile(path, FILE_LIMITS.key, `${flag} ${shown}`)).toString('utf8');
  let key: KeyObject;
  try {
    key = flag === '--sign-key' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch {
    throw new UsageError(`${flag}: ${shown} is not a PEM ${flag === '--sign-key' ? 'private' : 'public'} key`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`${flag}: ${shown} is a key of type ${key.asymmetricKeyType ?? 'unknown'}; an Ed25519 key is needed`);
  return key;
}
