/**
 * A set of animal ids, exact and compact: what the run knows of the store
 * (check.ts `StoreState.ids`), which a load profile adds every created id to
 * (CREATE-ID-UNIQUE is judged on every createPet answer). A `Set<bigint>`
 * holds a heap object per id (about 50 bytes); under load that is memory
 * growing for as long as the profile runs.
 *
 * Here an id is a bit in a 64-bit word: words keyed by `id >> 6` in an
 * open-addressing table of typed arrays, so ids a target hands out in
 * sequence take about a bit each, and scattered ones 16 to 32 bytes, with no
 * object per id. Membership is exact (never a probabilistic answer: a false
 * "seen before" would read as an id reused). Ids outside the signed 64-bit
 * range, which a target may send, go to a plain `Set`.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Words in the table at first; it doubles once more than half are used. */
const FIRST_CAPACITY = 64;

/** The exact set of ids the suite knows of: `has`, `add` and `size`, as a `Set<bigint>`'s. */
export class IdSet {
  #keys = new BigInt64Array(FIRST_CAPACITY);
  /** Each word's bits; 0 marks an empty slot (a word in use has at least one bit). */
  #words = new BigUint64Array(FIRST_CAPACITY);
  #used = 0;
  #size = 0;
  readonly #beyond = new Set<bigint>();

  /** Ids in the set. */
  get size(): number {
    return this.#size + this.#beyond.size;
  }

  has(id: bigint): boolean {
    if (id < INT64_MIN || id > INT64_MAX) return this.#beyond.has(id);
    const slot = this.#slot(id >> 6n);
    return (this.#words[slot]! & (1n << (id & 63n))) !== 0n;
  }

  add(id: bigint): this {
    if (id < INT64_MIN || id > INT64_MAX) {
      this.#beyond.add(id);
      return this;
    }
    const key = id >> 6n;
    const bit = 1n << (id & 63n);
    let slot = this.#slot(key);
    const word = this.#words[slot]!;
    if ((word & bit) !== 0n) return this;
    if (word === 0n) {
      if ((this.#used + 1) * 2 > this.#keys.length) {
        this.#grow();
        slot = this.#slot(key);
      }
      this.#keys[slot] = key;
      this.#used++;
    }
    this.#words[slot] = word | bit;
    this.#size++;
    return this;
  }

  /** The slot of `key`: where it is, or the empty one where it would go (linear probing). */
  #slot(key: bigint): number {
    const mask = this.#keys.length - 1;
    // The key's two halves mixed (Knuth's multiplicative hash): ids in sequence spread over the table.
    let slot = Math.imul(Number(BigInt.asUintN(32, key)) ^ Number(BigInt.asUintN(32, key >> 32n)), 0x9e3779b1) & mask;
    while (this.#words[slot] !== 0n && this.#keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const words = this.#words;
    this.#keys = new BigInt64Array(keys.length * 2);
    this.#words = new BigUint64Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      if (words[i] === 0n) continue;
      const slot = this.#slot(keys[i]!);
      this.#keys[slot] = keys[i]!;
      this.#words[slot] = words[i]!;
    }
  }
}
