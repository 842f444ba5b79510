// A HyperLogLog distinct counter with 2^14 registers, exact while small.
//
// Why our own rather than bloom-filters' HyperLogLog: its registers store (rho - 1), so an empty
// register and one that saw rho = 1 look the same and its linear counting undercounts small sets; it
// has no bias correction between linear counting and the raw estimate; its update renders a 64-bit
// hash as a binary string; and it keeps registers in a JS array (8 bytes each). Figures:
// docs/benchmarks.md, "Figures behind the constants".
//
// This one:
// - hashes values to 64 bits (two 32-bit MurmurHash3 lanes; strings, numbers and booleans apart);
// - is *sparse* up to SPARSE_LIMIT distinct hashes (an open-addressing table of hash pairs, exact
//   count: 64-bit collisions are negligible), then *dense*: 16384 one-byte registers (16 KiB);
// - estimates with Ertl's improved estimator ("New cardinality estimation algorithms for HyperLogLog
//   sketches", 2017), which is unbiased across the whole range without empirical tables. Standard
//   error 1.04 / sqrt(16384) = 0.81%, so the 2% bound of docs/language.md is 2.5 standard errors;
// - merges exactly: a dense state's registers are the max over the rows, whatever the split.

export const HLL_P = 14;
export const HLL_M = 1 << HLL_P;
const Q = 64 - HLL_P;
export const SPARSE_LIMIT = 1024;

// ---------------------------------------------------------------------------------------------------
// Hashing: writes the two lanes into h1/h2 (module state, so hashing allocates nothing).

let h1 = 0;
let h2 = 0;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

function mixH(h: number, k: number): number {
  h ^= mixK(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function fmix(h: number, len: number): number {
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function hashString(s: string): void {
  let a = 0x9747b28c;
  let b = 0x2f1a9c3d;
  const n = s.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    a = mixH(a, k);
    b = mixH(b, k ^ 0x5bd1e995);
  }
  if (i < n) {
    const k = s.charCodeAt(i);
    a ^= mixK(k);
    b ^= mixK(k ^ 0x5bd1e995);
  }
  h1 = fmix(a, n * 2);
  h2 = fmix(b, n * 2);
}

function hashNumber(x: number, seedA: number, seedB: number): void {
  f64[0] = x === 0 ? 0 : x; // -0 is 0
  const lo = u32[0]!;
  const hi = u32[1]!;
  h1 = fmix(mixH(mixH(seedA, lo), hi), 8);
  h2 = fmix(mixH(mixH(seedB, lo ^ 0x5bd1e995), hi), 8);
}

/** Hashes a non-null value into the lanes read by `Hll.addHashed`. */
export function hashValue(v: string | number | boolean): void {
  if (typeof v === 'string') hashString(v);
  else if (typeof v === 'number') hashNumber(v, 0x1b3c5d7f, 0x7e6d5c4b);
  else hashNumber(v ? 1 : 0, 0x61c88647, 0x3c6ef372);
}

// ---------------------------------------------------------------------------------------------------

export class Hll {
  /** Sparse: pairs (h1, h2) by open addressing, (0, 0) empty; null once dense. */
  table: Int32Array | null = new Int32Array(32);
  /** Distinct hashes in the table. */
  size = 0;
  /** Dense registers: rho (1..Q+1) of the register's largest hash, 0 when empty. */
  regs: Uint8Array | null = null;

  /** Adds the hash left by the last hashValue(). */
  addHashed(): void {
    this.addHash(h1, h2);
  }

  addHash(a: number, b: number): void {
    const regs = this.regs;
    if (regs !== null) {
      const idx = a & (HLL_M - 1);
      const r = rho(a, b);
      if (r > regs[idx]!) regs[idx] = r;
      return;
    }
    if (a === 0 && b === 0) b = 1;
    let table = this.table!;
    const mask = (table.length >> 1) - 1;
    for (let slot = b & mask; ; slot = (slot + 1) & mask) {
      const x = table[2 * slot]!;
      const y = table[2 * slot + 1]!;
      if (x === 0 && y === 0) break;
      if (x === (a | 0) && y === (b | 0)) return;
    }
    if (this.size >= SPARSE_LIMIT) {
      this.toDense();
      this.addHash(a, b);
      return;
    }
    if ((this.size + 1) * 2 > table.length >> 1) table = this.grow();
    insert(table, a, b);
    this.size++;
  }

  private grow(): Int32Array {
    const old = this.table!;
    const table = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== 0 || old[i + 1] !== 0) insert(table, old[i]!, old[i + 1]!);
    }
    this.table = table;
    return table;
  }

  private toDense(): void {
    const table = this.table!;
    this.regs = new Uint8Array(HLL_M);
    this.table = null;
    for (let i = 0; i < table.length; i += 2) {
      if (table[i] !== 0 || table[i + 1] !== 0) this.addHash(table[i]!, table[i + 1]!);
    }
  }

  merge(other: Hll): void {
    if (other.regs === null) {
      const t = other.table!;
      for (let i = 0; i < t.length; i += 2) if (t[i] !== 0 || t[i + 1] !== 0) this.addHash(t[i]!, t[i + 1]!);
      return;
    }
    if (this.regs === null) this.toDense();
    const regs = this.regs!;
    const o = other.regs;
    for (let i = 0; i < HLL_M; i++) if (o[i]! > regs[i]!) regs[i] = o[i]!;
  }

  /** Distinct values: exact while sparse, else Ertl's estimate, rounded. */
  estimate(): number {
    const regs = this.regs;
    if (regs === null) return this.size;
    const counts = new Float64Array(Q + 2);
    for (let i = 0; i < HLL_M; i++) counts[regs[i]!]!++;
    let z = HLL_M * tau(1 - counts[Q + 1]! / HLL_M);
    for (let k = Q; k >= 1; k--) z = 0.5 * (z + counts[k]!);
    z += HLL_M * sigma(counts[0]! / HLL_M);
    return Math.round((HLL_M * HLL_M) / (2 * Math.LN2 * z));
  }

  toJSON(): { s: number[] } | { d: string } {
    if (this.regs !== null) return { d: Buffer.from(this.regs.buffer, this.regs.byteOffset, this.regs.length).toString('base64') };
    const s: number[] = [];
    const t = this.table!;
    for (let i = 0; i < t.length; i += 2) if (t[i] !== 0 || t[i + 1] !== 0) s.push(t[i]!, t[i + 1]!);
    return { s };
  }

  /** Restores toJSON(); null when the JSON is not a state. */
  static fromJSON(json: unknown): Hll | null {
    if (typeof json !== 'object' || json === null) return null;
    const h = new Hll();
    const j = json as { s?: unknown; d?: unknown };
    if (typeof j.d === 'string') {
      const bytes = Buffer.from(j.d, 'base64');
      if (bytes.length !== HLL_M) return null;
      h.table = null;
      h.regs = new Uint8Array(HLL_M);
      for (let i = 0; i < HLL_M; i++) {
        if (bytes[i]! > Q + 1) return null;
        h.regs[i] = bytes[i]!;
      }
      return h;
    }
    if (!Array.isArray(j.s) || j.s.length % 2 !== 0) return null;
    for (const x of j.s as unknown[]) if (typeof x !== 'number' || (x | 0) !== x) return null;
    for (let i = 0; i < j.s.length; i += 2) h.addHash(j.s[i] as number, j.s[i + 1] as number);
    return h;
  }
}

function insert(table: Int32Array, a: number, b: number): void {
  const mask = (table.length >> 1) - 1;
  let slot = b & mask;
  while (table[2 * slot] !== 0 || table[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
  table[2 * slot] = a;
  table[2 * slot + 1] = b;
}

/** 1 + leading zeros of the Q = 50 hash bits above the register index (b, then a's top 18 bits). */
function rho(a: number, b: number): number {
  if (b !== 0) return Math.clz32(b) + 1;
  const rest = a >>> HLL_P;
  return rest !== 0 ? 32 + Math.clz32(rest) - HLL_P + 1 : Q + 1;
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const prev = z;
    z += x * y;
    y += y;
    if (z === prev) return z;
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const prev = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
    if (z === prev) return z / 3;
  }
}
