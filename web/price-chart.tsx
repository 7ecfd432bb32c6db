import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

interface Props {
  points: { at: string; price: number }[];
  current: number | null;
  /** Threshold lines, prices 0..1. */
  levels: number[];
  /** A click on the chart picks the price under the pointer (0..1). */
  onPick?: (price: number) => void;
  label: string;
}

/** The market's recent price (uPlot: ~20 KB gzipped, canvas) with the rule's threshold drawn across it. */
export function PriceChart({ points, current, levels, onPick, label }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const levelsRef = useRef(levels);
  levelsRef.current = levels;

  useEffect(() => {
    const now = Date.now() / 1000;
    const series = points.map((p) => [Date.parse(p.at) / 1000, p.price * 100] as const);
    if (current !== null) series.push([now, current * 100]);
    if (series.length === 1) series.unshift([now - 3600, series[0]![1]]);
    const data: uPlot.AlignedData = [series.map((s) => s[0]), series.map((s) => s[1])];
    const css = getComputedStyle(document.documentElement);
    const line = css.getPropertyValue('--accent').trim() || '#2563eb';
    const threshold = css.getPropertyValue('--warn').trim() || '#dc2626';
    const text = css.getPropertyValue('--fg').trim() || '#111';
    const width = box.current!.clientWidth || 600;
    plot.current?.destroy();
    plot.current = new uPlot(
      {
        width,
        height: 260,
        scales: { y: { range: (_u, min, max) => [Math.max(0, Math.min(min, ...levelsRef.current.map((l) => l * 100)) - 5), Math.min(100, Math.max(max, ...levelsRef.current.map((l) => l * 100)) + 5)] } },
        axes: [{ stroke: text }, { stroke: text, values: (_u, ticks) => ticks.map((t) => `${t.toFixed(0)}%`) }],
        series: [{}, { label: 'Price', stroke: line, width: 2, value: (_u, v) => (v == null ? '–' : `${v.toFixed(1)}%`) }],
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        hooks: {
          draw: [
            (u) => {
              const ctx = u.ctx;
              ctx.save();
              ctx.strokeStyle = threshold;
              ctx.setLineDash([6, 4]);
              ctx.lineWidth = 2 * devicePixelRatio;
              for (const l of levelsRef.current) {
                const y = u.valToPos(l * 100, 'y', true);
                ctx.beginPath();
                ctx.moveTo(u.bbox.left, y);
                ctx.lineTo(u.bbox.left + u.bbox.width, y);
                ctx.stroke();
              }
              ctx.restore();
            },
          ],
        },
      },
      data,
      box.current!,
    );
    const over = plot.current.over;
    const pick = (e: MouseEvent) => {
      if (!onPick || !plot.current) return;
      const y = e.clientY - over.getBoundingClientRect().top;
      onPick(Math.round(plot.current.posToVal(y, 'y') * 10) / 1000);
    };
    over.addEventListener('click', pick);
    return () => over.removeEventListener('click', pick);
  }, [points, current]);

  useEffect(() => plot.current?.redraw(false), [levels.join(',')]);
  useEffect(() => () => plot.current?.destroy(), []);

  // From the keyboard: ↑ and ↓ move the threshold by half a point.
  const onKeyDown = (e: KeyboardEvent) => {
    const level = levels[0];
    if (!onPick || level === undefined || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
    e.preventDefault();
    onPick(Math.round((level + (e.key === 'ArrowUp' ? 0.005 : -0.005)) * 1000) / 1000);
  };
  return (
    <div
      class="chart"
      ref={box}
      role="img"
      aria-label={label}
      tabIndex={onPick ? 0 : undefined}
      onKeyDown={onKeyDown}
      data-testid="price-chart"
    />
  );
}
