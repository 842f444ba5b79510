/**
 * The time a newest-N boundary keeps rows at or above: the `count`-th newest of the selected
 * times `values[sel[i]]`, i < n. A segment block holds its rows in time order, so a selection of
 * one is read off its end in one pass; any other order (a buffered chunk) is sorted. A head over a cluster node's partitions narrows a block of
 * thousands of rows to a few dozen, where sorting every block cost a tenth of the node's work.
 */
export function nthNewestSelected(values: Float64Array, sel: Uint32Array, n: number, count: number): number {
  if (count <= 0 || count > n) throw new RangeError(`the ${count}-th newest of ${n} times`);
  let ascending = true;
  for (let i = 1; i < n; i++) {
    if (values[sel[i]] < values[sel[i - 1]]) {
      ascending = false;
      break;
    }
  }
  if (ascending) return values[sel[n - count]];
  const sorted = new Float64Array(n);
  for (let i = 0; i < n; i++) sorted[i] = values[sel[i]];
  sorted.sort();
  return sorted[n - count];
}
