import 'uplot/dist/uPlot.min.css';
import { useElementSize } from '@mantine/hooks';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

/**
 * Activities a day (bars) and, with a metric, its daily sum (a line on its own scale), drawn by uPlot
 * (the chart library of the overview); loaded with the activities page only.
 */
export default function ActivityDayChart(props: {
  days: string[];
  counts: number[];
  sums?: (number | null)[];
  metric?: string;
}) {
  const { ref: box, width } = useElementSize();
  const target = useRef<HTMLDivElement>(null);
  const { days, counts, sums, metric } = props;
  useEffect(() => {
    if (!target.current || width === 0) return;
    const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = sums ? [x, counts, sums] : [x, counts];
    const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
    const plot = new uPlot(
      {
        width,
        height: 240,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: {
          x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
          sum: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max * 1.1)] },
        },
        axes: [
          { stroke: '#495057' },
          { stroke: '#495057', size: 48 },
          ...(sums ? [{ scale: 'sum', side: 1, stroke: '#c92a2a', size: 56, grid: { show: false } }] : []),
        ],
        series: [
          { label: 'Day' },
          { label: 'Activities', stroke: '#3b5bdb', fill: '#3b5bdb55', paths: bars, points: { show: false } },
          ...(sums
            ? [
                {
                  label: `Sum of ${metric}`,
                  scale: 'sum',
                  stroke: '#c92a2a',
                  width: 2,
                  points: { show: true },
                },
              ]
            : []),
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      target.current,
    );
    return () => plot.destroy();
  }, [days, counts, sums, metric, width]);
  return (
    <div ref={box} style={{ width: '100%' }}>
      <div
        ref={target}
        role="img"
        aria-label="Activities a day in the window (the table below lists the figures)"
      />
    </div>
  );
}
