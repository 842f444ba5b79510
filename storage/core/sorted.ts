/** Binary search in ascending arrays (block times, chunk field rows). */

/** The first index i with `values[i] >= target` (values.length when there is none). */
export function lowerBound(values: ArrayLike<number>, target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (values[mid] < target) low = mid + 1;
    else high = mid;
  }
  return low;
}
