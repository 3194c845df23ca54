/** How a request authenticates. */
export type AuthKind =
  /** `Bearer <key>`: the form the document gives. */
  | 'valid'
  /** No Authorization header. */
  | 'none'
  /** A non-empty bearer token that is not the key. */
  | 'invalid-token'
  /** `Bearer ` with no token. */
  | 'empty-token'
  /** The key under another scheme, or malformed. */
  | 'other-scheme'
  /** The key with the scheme name in another letter case. */
  | 'scheme-case';
