import type { Scope } from "../scope";
import { get } from "../api";
import { Badge, Card, DocsLink, Loading, StateBadge } from "../components/ui";
import { fmtAgo, fmtBytes } from "../format";
import { useData } from "../hooks";

export function ServicesPage({ project, env, go }: Scope) {
  const { data, error, loading } = useData(() => get("/api/projects/:project/envs/:env", { project, env }), [project, env], 10_000);
  if (!data) return <Loading error={error} loading={loading} />;
  const last = data.lastDeployment;
  const base = `/projects/${encodeURIComponent(project)}/${encodeURIComponent(env)}`;
  return (
    <>
      {last && (
        <Card
          title="Last deployment"
          right={
            <button type="button" className="btn" onClick={() => go(`${base}/deployments`)}>
              History →
            </button>
          }
        >
          <div className="card-body row">
            <StateBadge state={last.outcome} />
            <code>{last.id}</code>
            <span className="muted">{fmtAgo(last.startedAt)}</span>
            {last.by && <span className="muted">by {last.by}</span>}
            {last.git && (
              <span className="muted">
                commit <code>{last.git.commit.slice(0, 8)}</code>
                {last.git.dirty && (
                  <>
                    {" "}
                    <Badge kind="warn">dirty</Badge>
                  </>
                )}
              </span>
            )}
          </div>
        </Card>
      )}
      {data.edge && (
        <div style={{ marginTop: 16 }}>
          <Card title="HTTPS edge" className="edge-card">
            <div className="card-body row" data-edge-mode={data.edge.mode}>
              <Badge kind={data.edge.mode === "public" ? "ok" : undefined}>{data.edge.mode}</Badge>
              <span>{data.edge.appsDomain}</span>
              <span className="muted">listens on {data.edge.listens.join(", ")}</span>
              <span className="muted">
                {data.edge.mode === "public" ? `certificates from ${data.edge.acmeCa}` : "certificates from the platform's own CA"}
              </span>
              {!data.edge.running && <Badge kind="warn">not running</Badge>}
            </div>
          </Card>
        </div>
      )}
      {data.services.length === 0 && (
        <Card>
          <div className="empty">
            Nothing is deployed in this environment yet: run <code>platform deploy</code>.{" "}
            <DocsLink page="guide/getting-started.html#a-five-minute-tour">A five-minute tour →</DocsLink>
          </div>
        </Card>
      )}
      <div className="grid cols-3" style={{ marginTop: 16 }}>
        {data.services.map((s) => (
          <Card
            key={s.name}
            className="svc-card"
            title={
              <span className="row">
                <span
                  className="dot"
                  style={{ background: s.health === "healthy" ? "var(--ok)" : s.health === "not deployed" ? "var(--muted)" : "var(--err)" }}
                />
                {s.name} <Badge>{s.type}</Badge>
              </span>
            }
            right={<StateBadge state={s.health} />}
          >
            <div className="card-body" data-service={s.name}>
              <span className="k">Status</span>
              <span className="trunc">{s.status || s.state}</span>
              <span className="k">Image</span>
              <code className="trunc" title={s.image}>
                {s.image || "–"}
              </code>
              <span className="k">Public URL</span>
              {s.url ? (
                <a className="trunc" href={s.url} target="_blank" rel="noreferrer" style={{ color: "var(--accent)" }}>
                  {s.url.replace(/^https:\/\//, "")}
                </a>
              ) : (
                <span className="muted">private</span>
              )}
              <span className="k">Limits</span>
              <span>
                {s.details
                  ? `${s.details.limits.cpus ?? "∞"} CPU · ${fmtBytes(s.details.limits.memoryBytes)} · ${s.details.limits.pids ?? "∞"} pids`
                  : "–"}
              </span>
              <span className="k">Started</span>
              <span>
                {s.details ? `${fmtAgo(s.details.startedAt)}${s.details.restartCount ? ` · ${s.details.restartCount} restarts` : ""}` : "–"}
              </span>
              <span className="k">Last phase</span>
              <span>{s.lastPhase ?? "–"}</span>
              {s.replicas && (
                <>
                  <span className="k">Replicas</span>
                  <span data-replicas={s.replicas.length}>
                    {s.replicas.filter((r) => r.state === "running").length}/{s.wantReplicas} running
                    {s.replicas.map((r, i) => (
                      <span key={r.container} className="replica" data-replica={r.state} title={`${r.container}: ${r.status}`}>
                        <span className="dot" style={{ background: r.state === "running" ? "var(--ok)" : "var(--err)" }} />
                        {i + 1}
                      </span>
                    ))}
                  </span>
                </>
              )}
              {s.redis !== undefined && (
                <>
                  <span className="k">Redis</span>
                  <span data-redis>{s.redis ? `${fmtBytes(s.redis.usedMemoryBytes)} in use · ${s.redis.keys} keys` : "–"}</span>
                </>
              )}
            </div>
          </Card>
        ))}
      </div>
      {data.cronRuns && (
        <div style={{ marginTop: 16 }}>
          <Card title="Cron runs" className="cron-card">
            {data.cronRuns.length === 0 ? (
              <div className="card-body muted">no runs yet</div>
            ) : (
              <table className="t" data-cron-runs>
                <thead>
                  <tr>
                    <th>Job</th>
                    <th>Started</th>
                    <th className="num">Seconds</th>
                    <th>Outcome</th>
                    <th className="num">Exit</th>
                    <th>Output</th>
                  </tr>
                </thead>
                <tbody>
                  {data.cronRuns.map((r) => (
                    <tr key={`${r.job}-${r.started ?? r.scheduled}-${r.outcome}`}>
                      <td>
                        <code>{r.job}</code>
                      </td>
                      <td>{fmtAgo(r.started ?? r.scheduled ?? "")}</td>
                      <td className="num">{r.seconds === undefined ? "" : r.seconds.toFixed(1)}</td>
                      <td>
                        <StateBadge state={r.outcome} />
                      </td>
                      <td className="num">{r.exitCode ?? ""}</td>
                      <td className="trunc" title={r.output ?? r.error ?? r.reason ?? ""}>
                        {r.outcome === "skipped" ? r.reason : (r.error ?? r.output ?? "").trim().split("\n").at(-1)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
        </div>
      )}
    </>
  );
}
