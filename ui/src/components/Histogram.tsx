/**
 * The event counts over the range (GET /histogram) as bars. Dragging across the bars selects a
 * range and zooms into it (the range becomes absolute); Shift+Left/Right on the focused chart
 * does the same by halves, for the keyboard.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { isoBound, type TimeRange } from '../lib/time-range';
import { Chart, PALETTE } from './charts';

export interface HistogramData {
  interval: string;
  buckets: { time: string; count: number }[];
  total: number;
}

interface Props {
  data: HistogramData;
  onZoom: (range: TimeRange) => void;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function intervalMs(interval: string): number {
  const match = /^(\d+)(ms|s|m|h|d|w)$/.exec(interval);
  return match === null ? 60_000 : Number(match[1]) * UNIT_MS[match[2]!]!;
}

function label(time: string, step: number): string {
  const iso = new Date(time).toISOString();
  return step >= 86_400_000 ? iso.slice(0, 10) : step >= 60_000 ? iso.slice(5, 16).replace('T', ' ') : iso.slice(11, 19);
}

export function Histogram({ data, onZoom }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const [drag, setDrag] = useState<{ start: number; end: number } | null>(null);
  const step = intervalMs(data.interval);
  const times = data.buckets.map((bucket) => Date.parse(bucket.time));

  useEffect(() => {
    const made = new Chart(canvas.current!, {
      type: 'bar',
      data: {
        labels: data.buckets.map((bucket) => label(bucket.time, step)),
        datasets: [
          {
            label: 'events',
            data: data.buckets.map((bucket) => bucket.count),
            backgroundColor: PALETTE[0],
            barPercentage: 1,
            categoryPercentage: 0.9,
          },
        ],
      },
      options: {
        plugins: { legend: { display: false } },
        scales: { x: { ticks: { maxRotation: 0, autoSkipPadding: 16 } }, y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    chart.current = made;
    return () => made.destroy();
  }, [data]);

  /** The bucket under a pointer's x, clamped to the chart. */
  const bucketAt = (clientX: number): number => {
    const made = chart.current!;
    const x = clientX - canvas.current!.getBoundingClientRect().left;
    const index = Math.round(made.scales.x!.getValueForPixel(x) ?? 0);
    return Math.min(Math.max(index, 0), data.buckets.length - 1);
  };
  const zoomTo = (first: number, last: number) => {
    const [low, high] = first <= last ? [first, last] : [last, first];
    if (times.length === 0) return;
    onZoom({ from: isoBound(times[low]!), to: isoBound(times[high]! + step) });
  };
  const pixelOf = (index: number, edge: -1 | 1): number => {
    const made = chart.current;
    if (made === null) return 0;
    const x = made.scales.x!.getPixelForValue(index);
    const width = data.buckets.length > 1 ? made.scales.x!.getPixelForValue(1) - made.scales.x!.getPixelForValue(0) : made.chartArea.width;
    return x + (edge * width) / 2;
  };

  return (
    <div class="histogram" data-testid="histogram">
      <div class="histogram-summary">
        {data.total.toLocaleString('en-US')} events, {data.interval} buckets. Drag across the bars to zoom.
      </div>
      <div
        class="histogram-chart"
        tabIndex={0}
        role="img"
        aria-label={`Histogram of ${data.total} events; drag or press Shift+Left or Shift+Right to zoom into a half`}
        onPointerDown={(event) => {
          if (data.buckets.length === 0) return;
          (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
          const index = bucketAt(event.clientX);
          setDrag({ start: index, end: index });
        }}
        onPointerMove={(event) => drag !== null && setDrag({ ...drag, end: bucketAt(event.clientX) })}
        onPointerUp={() => {
          if (drag !== null && drag.start !== drag.end) zoomTo(drag.start, drag.end);
          setDrag(null);
        }}
        onKeyDown={(event) => {
          const half = Math.floor(data.buckets.length / 2);
          if (!event.shiftKey || data.buckets.length < 2) return;
          if (event.key === 'ArrowLeft') zoomTo(0, half - 1);
          else if (event.key === 'ArrowRight') zoomTo(half, data.buckets.length - 1);
        }}
      >
        <canvas ref={canvas} />
        {drag !== null && drag.start !== drag.end && (
          <div
            class="histogram-selection"
            style={{
              left: `${pixelOf(Math.min(drag.start, drag.end), -1)}px`,
              width: `${pixelOf(Math.max(drag.start, drag.end), 1) - pixelOf(Math.min(drag.start, drag.end), -1)}px`,
            }}
          />
        )}
      </div>
    </div>
  );
}
