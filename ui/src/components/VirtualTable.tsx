/**
 * A table that draws only the rows in view (fixed row height), so 50,000 rows scroll as smoothly
 * as 50. A row may open below itself a detail of fixed height (an event as JSON): offsets count
 * the open details before a row, found by binary search.
 */
import { useMemo, useRef, useState } from 'preact/hooks';

export interface Column<Row> {
  key: string;
  label: string;
  value: (row: Row) => string;
  width?: string;
}

interface Props<Row> {
  rows: Row[];
  columns: Column<Row>[];
  /** The text a row opens to; rows do not open without it. */
  detail?: (row: Row) => string;
  height?: number;
  label: string;
}

export const ROW_HEIGHT = 28;
const DETAIL_HEIGHT = 260;
const OVERSCAN = 10;

export function VirtualTable<Row>({ rows, columns, detail, height = 520, label }: Props<Row>) {
  const [scrollTop, setScrollTop] = useState(0);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const body = useRef<HTMLDivElement>(null);
  const openSorted = useMemo(() => [...open].sort((a, b) => a - b), [open]);

  /** How many open details come before row `index`. */
  const openBefore = (index: number): number => {
    let low = 0;
    let high = openSorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (openSorted[mid]! < index) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const offsetOf = (index: number) => index * ROW_HEIGHT + openBefore(index) * DETAIL_HEIGHT;
  /** The row drawn at a y offset: the last whose offset is at or above it. */
  const rowAt = (y: number): number => {
    let low = 0;
    let high = rows.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (offsetOf(mid) <= y) low = mid;
      else high = mid - 1;
    }
    return Math.max(low, 0);
  };

  const totalHeight = rows.length * ROW_HEIGHT + openSorted.length * DETAIL_HEIGHT;
  const first = Math.max(rowAt(scrollTop) - OVERSCAN, 0);
  const last = Math.min(rowAt(scrollTop + height) + OVERSCAN, rows.length - 1);
  const template = columns.map((column) => column.width ?? 'minmax(120px, 1fr)').join(' ');

  const toggle = (index: number) => {
    if (detail === undefined) return;
    const next = new Set(open);
    if (next.has(index)) next.delete(index);
    else next.add(index);
    setOpen(next);
  };

  const visible = [];
  for (let index = first; index <= last && rows.length > 0; index++) {
    const row = rows[index]!;
    const isOpen = open.has(index);
    visible.push(
      <div key={index} class="vt-row-group" style={{ top: `${offsetOf(index)}px` }}>
        <div
          class={`vt-row${isOpen ? ' vt-open' : ''}`}
          role="row"
          aria-rowindex={index + 2}
          aria-expanded={detail === undefined ? undefined : isOpen}
          tabIndex={detail === undefined ? -1 : 0}
          style={{ gridTemplateColumns: template, height: `${ROW_HEIGHT}px` }}
          onClick={() => toggle(index)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' || event.key === ' ') {
              event.preventDefault();
              toggle(index);
            }
          }}
        >
          {columns.map((column) => {
            const text = column.value(row);
            return (
              <div key={column.key} class="vt-cell" role="cell" title={text}>
                {text}
              </div>
            );
          })}
        </div>
        {isOpen && detail !== undefined && (
          <pre class="vt-detail" style={{ height: `${DETAIL_HEIGHT}px` }} data-testid="event-json">
            {detail(row)}
          </pre>
        )}
      </div>,
    );
  }

  return (
    <div class="vt" role="table" aria-label={label} aria-rowcount={rows.length + 1}>
      <div class="vt-row vt-header" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template }}>
        {columns.map((column) => (
          <div key={column.key} class="vt-cell" role="columnheader">
            {column.label}
          </div>
        ))}
      </div>
      <div
        class="vt-body"
        ref={body}
        style={{ height: `${Math.min(height, Math.max(totalHeight, ROW_HEIGHT))}px` }}
        onScroll={(event) => setScrollTop((event.target as HTMLDivElement).scrollTop)}
      >
        <div class="vt-space" style={{ height: `${totalHeight}px` }}>
          {visible}
        </div>
      </div>
    </div>
  );
}
