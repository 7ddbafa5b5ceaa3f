import { useEffect, useRef } from "react";
import uPlot from "uplot";

export interface Series {
  label: string;
  color: string;
  values: (number | null)[];
}

/** One line per tick: the time, and the day when the range spans more than one. */
function timeLabel(sec: number, withSeconds: boolean): string {
  const d = new Date(sec * 1000);
  const time = d.toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    ...(withSeconds ? { second: "2-digit" } : {}),
    hour12: false,
  });
  return d.toDateString() === new Date().toDateString()
    ? time
    : `${d.toLocaleDateString(undefined, { month: "short", day: "numeric" })} ${time}`;
}

/** A uPlot line chart over shared timestamps (seconds), sized to its container. */
export function TimeChart({
  xs,
  series,
  format,
  height = 220,
}: {
  xs: number[];
  series: Series[];
  format: (v: number) => string;
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const grid = css.getPropertyValue("--border").trim();
    const muted = css.getPropertyValue("--muted").trim();
    const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height,
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            fill: `${s.color}22`,
            spanGaps: false,
            value: (_u: uPlot, v: number | null) => (v === null ? "–" : format(v)),
          })),
        ],
        axes: [
          { ...axis, space: 70, values: (_u: uPlot, vals: number[]) => vals.map((v) => timeLabel(v, vals.at(-1)! - vals[0]! < 600)) },
          { ...axis, size: 70, values: (_u: uPlot, vals: number[]) => vals.map(format) },
        ],
        scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] } },
        // Room on the right for the last time label.
        padding: [10, 28, 0, 0],
        cursor: { drag: { x: false, y: false } },
        legend: { show: true },
      },
      [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [xs, series, format, height]);
  return <div ref={box} className="chart" />;
}
