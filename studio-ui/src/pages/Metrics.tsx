import { useState } from "react";
import type { Scope } from "../scope";
import { type RouteStats, get } from "../api";
import { Sparkline } from "../components/Sparkline";
import { Badge, Card, DocsLink, Loading, Segmented } from "../components/ui";
import { RANGES, colorOf, fmtMs, fmtRate, fmtTime } from "../format";
import { useData } from "../hooks";

const METRICS = "/api/projects/:project/envs/:env/metrics";

const statusColor = (code: string) =>
  code.startsWith("5")
    ? "var(--err)"
    : code.startsWith("4")
      ? "var(--warn)"
      : code.startsWith("2") || code.startsWith("3")
        ? "var(--ok)"
        : "var(--muted)";

function StatusCodes({ codes }: { codes: Readonly<Record<string, number>> }) {
  const entries = Object.entries(codes).sort(([a], [b]) => a.localeCompare(b));
  const total = entries.reduce((s, [, n]) => s + n, 0) || 1;
  return (
    <div style={{ minWidth: 150 }}>
      <div className="status-bar">
        {entries.map(([c, n]) => (
          <span key={c} style={{ width: `${(n / total) * 100}%`, background: statusColor(c) }} />
        ))}
      </div>
      <div className="row small" style={{ gap: 8, marginTop: 3 }}>
        {entries.map(([c, n]) => (
          <span key={c} data-status={c} data-count={n}>
            <span style={{ color: statusColor(c), fontWeight: 650 }}>{c === "0" ? "—" : c}</span>{" "}
            <span className="muted">{n.toLocaleString()}</span>
          </span>
        ))}
      </div>
    </div>
  );
}

function Traces({
  project,
  env,
  route,
  range,
  go,
}: Pick<Scope, "project" | "env" | "go"> & { route: RouteStats; range: { from: number; to: number } }) {
  const [order, setOrder] = useState<"recent" | "slowest">("recent");
  const q = { service: route.service, route: route.route, method: route.method, from: range.from, to: range.to, order, limit: 50 };
  const { data, error, loading } = useData(() => get(`${METRICS}/traces`, { project, env }, q), [project, env, JSON.stringify(q)]);
  const base = `/projects/${encodeURIComponent(project)}/${encodeURIComponent(env)}`;
  return (
    <Card
      title={
        <>
          Sampled traces of{" "}
          <code>
            {route.method} {route.route}
          </code>
        </>
      }
      right={
        <Segmented
          value={order}
          options={[
            { value: "recent", label: "Recent" },
            { value: "slowest", label: "Slowest" },
          ]}
          onChange={setOrder}
        />
      }
    >
      {!data ? (
        <Loading error={error} loading={loading} />
      ) : data.length === 0 ? (
        <div className="empty">
          No sampled trace of this route in the range (traces are sampled; metrics count every request).{" "}
          <DocsLink page="guide/telemetry.html#sampling">How traces are sampled →</DocsLink>
        </div>
      ) : (
        <table className="t" data-testid="traces">
          <thead>
            <tr>
              <th>Time</th>
              <th>Status</th>
              <th className="num">Route span</th>
              <th className="num">Trace</th>
              <th className="num">Spans</th>
              <th>Services</th>
              <th>Trace id</th>
            </tr>
          </thead>
          <tbody>
            {data.map((t) => (
              <tr key={t.traceId} className="click" onClick={() => go(`${base}/traces/${t.traceId}`)}>
                <td>{fmtTime(t.startMs)}</td>
                <td>
                  {t.httpStatus !== null && (
                    <span style={{ color: statusColor(String(t.httpStatus)), fontWeight: 650 }}>{t.httpStatus}</span>
                  )}{" "}
                  {t.errorCount > 0 && (
                    <Badge kind="err">
                      {t.errorCount} error{t.errorCount > 1 ? "s" : ""}
                    </Badge>
                  )}
                </td>
                <td className="num">{fmtMs(t.routeSpanDurationMs)}</td>
                <td className="num">{fmtMs(t.durationMs)}</td>
                <td className="num">{t.spanCount}</td>
                <td>
                  <span className="row" style={{ gap: 6 }}>
                    {t.services.map((s) => (
                      <span key={s} className="row small" style={{ gap: 4 }}>
                        <span className="dot" style={{ background: colorOf(s, t.services) }} />
                        {s}
                      </span>
                    ))}
                  </span>
                </td>
                <td>
                  <code className="small muted">{t.traceId.slice(0, 16)}…</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

export function MetricsPage({ project, env, go, query }: Scope) {
  const [range, setRange] = useState("1h");
  const ms = RANGES.find((r) => r.label === range)!.ms;
  const [window, setWindow] = useState(() => {
    const to = Date.now();
    return { from: to - ms, to };
  });
  const { data, error, loading } = useData(
    () => {
      const to = Date.now();
      const w = { from: to - ms, to };
      setWindow(w);
      return get(`${METRICS}/routes`, { project, env }, { ...w, buckets: 40 });
    },
    [project, env, ms],
    15_000,
  );
  const sel = query.get("route");
  const selected = data?.routes.find((r) => r.service === query.get("service") && r.route === sel && r.method === query.get("method"));
  const base = `/projects/${encodeURIComponent(project)}/${encodeURIComponent(env)}/metrics`;
  const open = (r: RouteStats) => go(`${base}?${new URLSearchParams({ service: r.service, method: r.method, route: r.route, range })}`);
  const services = [...new Set(data?.routes.map((r) => r.service) ?? [])];
  return (
    <>
      <div className="row" style={{ marginBottom: 12 }}>
        <span className="muted small">
          Per route template, from the services' own HTTP server metrics (every request counted, no application code).
        </span>
        <span className="spacer" />
        <Segmented value={range} options={RANGES.map((r) => ({ value: r.label, label: r.label }))} onChange={setRange} />
      </div>
      {!data ? (
        <Loading error={error} loading={loading} />
      ) : (
        <Card title={`Routes (${data.routes.length})`}>
          {data.routes.length === 0 ? (
            <div className="empty">
              No requests recorded in this range. Instrumented services report here within a minute of their first request.{" "}
              <DocsLink page="guide/telemetry.html#what-gets-instrumented">What gets instrumented →</DocsLink>
            </div>
          ) : (
            <div style={{ overflow: "auto" }}>
              <table className="t" data-testid="routes">
                <thead>
                  <tr>
                    <th>Service</th>
                    <th>Route</th>
                    <th className="num">Requests</th>
                    <th className="num">Rate</th>
                    <th className="num">p50</th>
                    <th className="num">p95</th>
                    <th className="num">p99</th>
                    <th>Status codes</th>
                    <th>Traffic</th>
                  </tr>
                </thead>
                <tbody>
                  {data.routes.map((r) => (
                    <tr
                      key={`${r.service} ${r.method} ${r.route}`}
                      className={`click ${selected === r ? "sel" : ""}`}
                      onClick={() => open(r)}
                      data-route={`${r.method} ${r.route}`}
                      data-service={r.service}
                    >
                      <td>
                        <span className="row" style={{ gap: 6 }}>
                          <span className="dot" style={{ background: colorOf(r.service, services) }} />
                          {r.service}
                        </span>
                      </td>
                      <td>
                        <code>
                          <b>{r.method}</b> {r.route}
                        </code>
                        {r.source === "spans" && (
                          <>
                            {" "}
                            <Badge>sampled</Badge>
                          </>
                        )}
                      </td>
                      <td className="num" data-testid="count">
                        {r.count.toLocaleString()}
                      </td>
                      <td className="num">{fmtRate(r.ratePerSecond)}</td>
                      <td className="num">{fmtMs(r.latencyMs.p50)}</td>
                      <td className="num">{fmtMs(r.latencyMs.p95)}</td>
                      <td className="num">{fmtMs(r.latencyMs.p99)}</td>
                      <td>
                        <StatusCodes codes={r.statusCodes} />
                      </td>
                      <td>
                        <Sparkline values={r.sparkline} color={colorOf(r.service, services)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>
      )}
      {selected && <Traces project={project} env={env} go={go} route={selected} range={window} />}
    </>
  );
}
