/** An aggregate result drawn as a bar, line, area, time or pie chart (Chart.js). */
import { useEffect, useRef } from 'preact/hooks';
import { type Aggregate, toSeries } from './chart-data';
import { Chart, PALETTE } from './charts';

export type ChartKind = 'bar' | 'line' | 'area' | 'timechart' | 'pie';

interface Props {
  result: Aggregate;
  kind: ChartKind;
  label: string;
}

export function DataChart({ result, kind, label }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const series = toSeries(result);
    const pie = kind === 'pie';
    const chart = new Chart(canvas.current!, {
      type: pie ? 'pie' : kind === 'bar' ? 'bar' : 'line',
      data: {
        labels: series.labels,
        datasets: (pie ? series.datasets.slice(0, 1) : series.datasets).map((dataset, index) => ({
          ...dataset,
          borderColor: pie ? '#fff' : PALETTE[index % PALETTE.length],
          backgroundColor: pie
            ? series.labels.map((_, slice) => PALETTE[slice % PALETTE.length]!)
            : PALETTE[index % PALETTE.length] + (kind === 'area' ? '66' : ''),
          fill: kind === 'area' ? (index === 0 ? 'origin' : '-1') : false,
          pointRadius: kind === 'bar' || pie ? undefined : series.labels.length > 60 ? 0 : 2,
          tension: 0.2,
        })),
      },
      options: {
        plugins: { legend: { display: pie || series.datasets.length > 1, position: 'bottom' } },
        scales: pie ? {} : { y: { beginAtZero: true, stacked: kind === 'area' }, x: { ticks: { maxRotation: 0, autoSkipPadding: 12 } } },
      },
    });
    return () => chart.destroy();
  }, [result, kind]);
  return (
    <div class="data-chart" role="img" aria-label={label}>
      <canvas ref={canvas} />
    </div>
  );
}
