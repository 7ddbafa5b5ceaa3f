import { useState } from "react";
import type { Scope } from "../scope";
import { type TraceSpan, get } from "../api";
import { Badge, Card, Loading } from "../components/ui";
import { colorOf, fmtMs, fmtTime } from "../format";
import { useData } from "../hooks";

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

function Attributes({ span, color }: { span: TraceSpan; color: string }) {
  const sections: [string, Readonly<Record<string, unknown>>][] = [
    ["Span", span.attributes],
    ["Resource", span.resource],
  ];
  return (
    <Card
      title={
        <span className="row">
          <span className="dot" style={{ background: color }} />
          {span.name}
        </span>
      }
    >
      <div className="card-body" data-testid="span-attributes">
        <div className="attrs" style={{ marginBottom: 12 }}>
          <span className="k">service</span>
          <span>{span.service}</span>
          <span className="k">kind</span>
          <span>{span.kind}</span>
          <span className="k">duration</span>
          <span>{fmtMs(span.durationMs)}</span>
          <span className="k">status</span>
          <span>
            {span.status === "error" ? <Badge kind="err">error</Badge> : span.status}
            {span.statusMessage && ` ${span.statusMessage}`}
          </span>
          <span className="k">span id</span>
          <span>{span.spanId}</span>
        </div>
        {sections.map(
          ([title, attrs]) =>
            Object.keys(attrs).length > 0 && (
              <div key={title} style={{ marginBottom: 12 }}>
                <h4 style={{ margin: "6px 0" }}>{title} attributes</h4>
                <div className="attrs">
                  {Object.entries(attrs)
                    .sort(([a], [b]) => a.localeCompare(b))
                    .flatMap(([k, v]) => [
                      <span key={`k${k}`} className="k">
                        {k}
                      </span>,
                      <span key={`v${k}`}>{show(v)}</span>,
                    ])}
                </div>
              </div>
            ),
        )}
        {span.events.length > 0 && (
          <>
            <h4 style={{ margin: "6px 0" }}>Events</h4>
            {span.events.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a span's events are fixed once the trace is loaded, in the order recorded, and may repeat a name and a time
              <div key={i} className="small">
                <b>{e.name}</b>{" "}
                <span className="muted">
                  {Object.entries(e.attributes)
                    .map(([k, v]) => `${k}=${show(v)}`)
                    .join(" ")}
                </span>
              </div>
            ))}
          </>
        )}
      </div>
    </Card>
  );
}

export function TracePage({ traceId, go, project, env }: Scope & { traceId: string }) {
  const { data, error, loading } = useData(() => get("/api/traces/:id", { id: traceId }), [traceId]);
  const [sel, setSel] = useState<string | null>(null);
  if (!data) return <Loading error={error} loading={loading} />;
  const span = data.spans.find((s) => s.spanId === sel) ?? data.spans[0]!;
  const total = Math.max(data.durationMs, 0.001);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <>
      <div className="row" style={{ marginBottom: 12 }}>
        <button
          type="button"
          className="btn"
          onClick={() =>
            history.length > 1 ? history.back() : go(`/projects/${encodeURIComponent(project)}/${encodeURIComponent(env)}/metrics`)
          }
        >
          ← Back
        </button>
        <code className="muted">{data.traceId}</code>
        <span className="muted">
          {fmtTime(data.startMs)} · {fmtMs(data.durationMs)} · {data.spans.length} spans
        </span>
        {data.errorCount > 0 && (
          <Badge kind="err">
            {data.errorCount} error{data.errorCount > 1 ? "s" : ""}
          </Badge>
        )}
        <span className="spacer" />
        {data.services.map((s) => (
          <span key={s} className="row small" style={{ gap: 5 }}>
            <span className="dot" style={{ background: colorOf(s, data.services) }} />
            {s}
          </span>
        ))}
      </div>
      <div className="split">
        <Card>
          <div className="wf" data-testid="waterfall">
            <div className="wf-axis">
              <div style={{ padding: "4px 10px" }}>Span</div>
              <div className="ticks">
                {ticks.map((t) => (
                  <span key={t} style={{ left: `${Math.min(96, Math.max(4, t * 100))}%` }}>
                    {fmtMs(t * total)}
                  </span>
                ))}
              </div>
            </div>
            {data.spans.map((s) => {
              const left = ((s.startMs - data.startMs) / total) * 100;
              const width = Math.max(0.3, (s.durationMs / total) * 100);
              const color = colorOf(s.service, data.services);
              return (
                // biome-ignore lint/a11y/useSemanticElements: the row is a grid of block content (name column, timeline track), which a <button> may not hold
                <div
                  key={s.spanId}
                  className={`wf-row ${s.spanId === span.spanId ? "sel" : ""}`}
                  role="button"
                  tabIndex={0}
                  aria-pressed={s.spanId === span.spanId}
                  onClick={() => setSel(s.spanId)}
                  onKeyDown={(e) => {
                    if (e.key === "Enter" || e.key === " ") {
                      e.preventDefault();
                      setSel(s.spanId);
                    }
                  }}
                  data-span-service={s.service}
                  data-status={s.status}
                >
                  <div className="wf-name" style={{ paddingLeft: 10 + s.depth * 16 }}>
                    <span className="dot" style={{ background: color }} />
                    <span className="nm" title={s.name}>
                      {s.name}
                    </span>
                    {s.status === "error" && <Badge kind="err">!</Badge>}
                  </div>
                  <div className="wf-track">
                    <div
                      className={`wf-bar ${s.status === "error" ? "err" : ""}`}
                      style={{ left: `${left}%`, width: `${width}%`, background: color }}
                    />
                    <span
                      className="wf-dur"
                      style={left + width > 80 ? { right: `${100 - left + 0.5}%` } : { left: `calc(${left + width}% + 6px)` }}
                    >
                      {fmtMs(s.durationMs)}
                    </span>
                  </div>
                </div>
              );
            })}
          </div>
        </Card>
        <Attributes span={span} color={colorOf(span.service, data.services)} />
      </div>
    </>
  );
}
