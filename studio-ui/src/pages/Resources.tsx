import { useMemo, useState } from "react";
import type { Scope } from "../scope";
import { type Sample, get } from "../api";
import { TimeChart } from "../components/TimeChart";
import { Card, DocsLink, Loading, Segmented } from "../components/ui";
import { RANGES, colorOf, fmtBytes } from "../format";
import { useData } from "../hooks";

const fmtCpu = (v: number) => `${v.toFixed(v < 1 ? 2 : v < 10 ? 1 : 0)}%`;

/** Shared time axis: every sample time of any service, each series null where it has none. */
function align(series: Record<string, Sample[]>, pick: (s: Sample) => number) {
  const names = Object.keys(series).sort();
  // Samples of one round land within a second or two of each other: one x per 5 s slot.
  const slot = (t: number) => Math.round(t / 5000) * 5;
  const xs = [...new Set(names.flatMap((n) => series[n]!.map((s) => slot(s.at))))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  return {
    xs,
    names,
    values: names.map((n) => {
      const v: (number | null)[] = new Array(xs.length).fill(null);
      for (const s of series[n]!) v[index.get(slot(s.at))!] = pick(s);
      return v;
    }),
  };
}

export function ResourcesPage({ project, env }: Scope) {
  const [range, setRange] = useState("1h");
  const ms = RANGES.find((r) => r.label === range)!.ms;
  const { data, error, loading } = useData(
    () => {
      const to = Date.now();
      return get("/api/projects/:project/envs/:env/stats", { project, env }, { from: to - ms, to });
    },
    [project, env, ms],
    10_000,
  );
  const charts = useMemo(() => {
    if (!data) return undefined;
    const cpu = align(data.series, (s) => s.cpuPercent);
    const mem = align(data.series, (s) => s.memoryBytes);
    const all = cpu.names;
    return {
      xs: cpu.xs,
      cpu: cpu.names.map((n, i) => ({ label: n, color: colorOf(n, all), values: cpu.values[i]! })),
      mem: mem.names.map((n, i) => ({ label: n, color: colorOf(n, all), values: mem.values[i]! })),
      latest: all.map((n) => ({ name: n, s: data.series[n]!.at(-1)! })),
    };
  }, [data]);
  return (
    <>
      <div className="row" style={{ marginBottom: 12 }}>
        <span className="muted small">
          Sampled every 10 s from the engine's stats (cgroup v1 and v2), or a cluster's metrics API; kept 7 days.
        </span>
        <span className="spacer" />
        <Segmented value={range} options={RANGES.map((r) => ({ value: r.label, label: r.label }))} onChange={setRange} />
      </div>
      {!charts ? (
        <Loading error={error} loading={loading} />
      ) : charts.xs.length === 0 ? (
        <Card>
          <div className="empty">
            No samples in this range yet: Studio samples every 10 seconds while it runs.{" "}
            <DocsLink page="guide/studio.html#pages">How Studio reads CPU and memory →</DocsLink>
          </div>
        </Card>
      ) : (
        <>
          <div className="grid cols-2">
            <Card title="CPU (% of one core)">
              <div className="card-body" data-testid="cpu-chart">
                <TimeChart xs={charts.xs} series={charts.cpu} format={fmtCpu} />
              </div>
            </Card>
            <Card title="Memory (without page cache)">
              <div className="card-body" data-testid="mem-chart">
                <TimeChart xs={charts.xs} series={charts.mem} format={(v) => fmtBytes(v)} />
              </div>
            </Card>
          </div>
          <Card title="Now">
            <table className="t">
              <thead>
                <tr>
                  <th>Service</th>
                  <th className="num">CPU</th>
                  <th className="num">Memory</th>
                  <th className="num">Limit</th>
                  <th>Use of limit</th>
                </tr>
              </thead>
              <tbody>
                {charts.latest.map(({ name, s }) => {
                  const pct = s.memoryLimitBytes ? (s.memoryBytes / s.memoryLimitBytes) * 100 : null;
                  return (
                    <tr key={name}>
                      <td>
                        <span className="row">
                          <span
                            className="dot"
                            style={{
                              background: colorOf(
                                name,
                                charts.latest.map((x) => x.name),
                              ),
                            }}
                          />
                          {name}
                        </span>
                      </td>
                      <td className="num">{fmtCpu(s.cpuPercent)}</td>
                      <td className="num">{fmtBytes(s.memoryBytes)}</td>
                      <td className="num">{fmtBytes(s.memoryLimitBytes)}</td>
                      <td style={{ width: "25%" }}>
                        {pct === null ? (
                          <span className="muted">no limit</span>
                        ) : (
                          <div className="status-bar">
                            <span style={{ width: `${Math.min(100, pct)}%`, background: pct > 85 ? "var(--err)" : "var(--accent)" }} />
                          </div>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Card>
        </>
      )}
    </>
  );
}
