/** Chart.js with the parts the UI draws (bars, lines, areas, pies), registered once. */
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PieController,
  PointElement,
  Tooltip,
} from 'chart.js';

Chart.register(
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PieController,
  PointElement,
  Tooltip,
);
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

export const PALETTE = ['#2f6fdf', '#e0662c', '#2a9d5c', '#b8407a', '#8a63d2', '#c9a227', '#1aa3b3', '#6b7280'];

export { Chart };
