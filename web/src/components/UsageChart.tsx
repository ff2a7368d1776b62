import 'uplot/dist/uPlot.min.css';
import { useElementSize } from '@mantine/hooks';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import type { components } from '../api/schema';

type UsageEntry = components['schemas']['AnalyticsUsageEntry'];

const SERIES = [
  { key: 'apiCalls', label: 'API calls', color: '#3b5bdb' },
  { key: 'errors', label: 'Errors', color: '#c92a2a' },
  { key: 'uniqueUsers', label: 'Unique users', color: '#087f5b' },
] as const;

/**
 * Daily API calls, errors and unique users, drawn by uPlot (a small, fast canvas chart library),
 * sized to its container; loaded with the overview page only.
 */
export default function UsageChart({ usage }: { usage: UsageEntry[] }) {
  const { ref: box, width } = useElementSize();
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!target.current || width === 0) return;
    const days = usage.map((u) => Date.parse(`${u.date}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [days, ...SERIES.map((s) => usage.map((u) => u[s.key]))];
    const plot = new uPlot(
      {
        width,
        height: 260,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [{ stroke: '#495057' }, { stroke: '#495057', size: 56 }],
        series: [
          { label: 'Day' },
          ...SERIES.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            fill: `${s.color}14`,
            points: { show: false },
          })),
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      target.current,
    );
    return () => plot.destroy();
  }, [usage, width]);
  return (
    <div ref={box} style={{ width: '100%' }}>
      <div
        ref={target}
        role="img"
        aria-label="Daily API calls, errors and unique users (the table below lists the figures)"
      />
    </div>
  );
}
