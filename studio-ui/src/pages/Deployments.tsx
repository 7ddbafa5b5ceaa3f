import { useState } from "react";
import type { Scope } from "../scope";
import { type Comparison, type DeploymentView, type PhaseTiming, get } from "../api";
import { Badge, Card, Loading, StateBadge } from "../components/ui";
import { fmtMs, fmtTime } from "../format";
import { useData } from "../hooks";

const ENV = "/api/projects/:project/envs/:env";

const PHASE_COLOR: Record<string, string> = {
  Installing: "#6366f1",
  built: "#6366f1",
  migrating: "#f59e0b",
  migrated: "#f59e0b",
  starting: "#06b6d4",
  healthy: "#10b981",
  unchanged: "#64748b",
  failed: "#ef4444",
  "migration failed": "#ef4444",
};

function PhaseBar({ phases }: { phases: PhaseTiming[] }) {
  const total = phases.reduce((s, p) => s + (p.ms ?? 0), 0) || 1;
  return (
    <div className="phases" title={phases.map((p) => `${p.phase} ${fmtMs(p.ms)}`).join(" → ")}>
      {phases.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a service's phases are append-only (in the order they happened), and neither name nor time is unique
        <span key={i} style={{ width: `${((p.ms ?? 0) / total) * 100}%`, background: PHASE_COLOR[p.phase] ?? "#64748b" }} />
      ))}
    </div>
  );
}

function Detail({ d }: { d: DeploymentView }) {
  return (
    <div className="card-body">
      <div className="kv" style={{ marginBottom: 14 }}>
        <span className="k">Who</span>
        <span>{d.by ?? "–"}</span>
        <span className="k">When</span>
        <span>
          {fmtTime(d.startedAt)} · {fmtMs(d.durationMs)}
        </span>
        <span className="k">Commit</span>
        <span>
          {d.git ? (
            <>
              <code>{d.git.commit.slice(0, 12)}</code> {d.git.dirty ? <Badge kind="warn">dirty</Badge> : <Badge kind="ok">clean</Badge>}
            </>
          ) : (
            "not a git directory"
          )}
        </span>
        {d.error && (
          <>
            <span className="k">Error</span>
            <span className="err-box">{d.error}</span>
          </>
        )}
      </div>
      <table className="t">
        <thead>
          <tr>
            <th>Service</th>
            <th>Phases</th>
            <th className="num">Timings</th>
            <th>Image</th>
          </tr>
        </thead>
        <tbody>
          {d.services.map((s) => (
            <tr key={s.name}>
              <td>
                <b>{s.name}</b> <StateBadge state={s.phase} />
              </td>
              <td style={{ width: "30%" }}>
                <PhaseBar phases={s.phases} />
              </td>
              <td className="num small">{s.phases.map((p) => `${p.phase} ${fmtMs(p.ms)}`).join(" · ")}</td>
              <td>
                <code className="small">{s.image ?? "–"}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.migrations.map((m) => (
        <div key={m.service} style={{ marginTop: 14 }}>
          <div className="row">
            <b>Migration of {m.service}</b> <Badge kind={m.failed ? "err" : "ok"}>exit {m.exitCode ?? "?"}</Badge>
          </div>
          <pre className="out">{m.output.trim() || "(no output)"}</pre>
        </div>
      ))}
      {d.notes.length > 0 && (
        <ul className="small muted">
          {d.notes.map((n, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a deployment's notes are fixed once it is recorded, and may repeat
            <li key={i}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ConfigDiff({ parts }: { parts: Comparison["config"] }) {
  const rows: { cls: string; text: string }[] = [];
  for (const p of parts) {
    const lines = p.text.replace(/\n$/, "").split("\n");
    if (p.kind === "same" && lines.length > 6) {
      for (const l of lines.slice(0, 2)) rows.push({ cls: "", text: `  ${l}` });
      rows.push({ cls: "fold", text: `  … ${lines.length - 4} unchanged lines` });
      for (const l of lines.slice(-2)) rows.push({ cls: "", text: `  ${l}` });
    } else
      for (const l of lines)
        rows.push({ cls: p.kind === "same" ? "" : p.kind, text: `${p.kind === "added" ? "+" : p.kind === "removed" ? "-" : " "} ${l}` });
  }
  return (
    <div className="diff" data-testid="config-diff">
      {rows.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the diff's lines are computed once from a comparison, a line's place is its identity (texts repeat)
        <div key={i} className={r.cls}>
          {r.text || " "}
        </div>
      ))}
    </div>
  );
}

export function DeploymentsPage({ project, env }: Scope) {
  const { data, error, loading } = useData(() => get(`${ENV}/deployments`, { project, env }), [project, env], 15_000);
  const [open, setOpen] = useState<string | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [cmp, setCmp] = useState<Comparison | null>(null);
  const [cmpError, setCmpError] = useState<string>();
  if (!data) return <Loading error={error} loading={loading} />;
  const pick = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));
  const compare = () => {
    const [from, to] = [...picked].sort((x, y) => data.findIndex((d) => d.id === y) - data.findIndex((d) => d.id === x));
    if (!from || !to) return;
    get(`${ENV}/compare`, { project, env }, { from, to }).then(
      (c) => {
        setCmp(c);
        setCmpError(undefined);
      },
      (e: Error) => setCmpError(e.message),
    );
  };
  return (
    <>
      <Card
        title={`Deployments (${data.length})`}
        right={
          <div className="row">
            <span className="muted small">Pick two to compare</span>
            <button type="button" className="btn primary" disabled={picked.length !== 2} onClick={compare}>
              Compare
            </button>
          </div>
        }
      >
        <table className="t">
          <thead>
            <tr>
              <th style={{ width: 36 }} />
              <th>Deployment</th>
              <th>Outcome</th>
              <th>Who</th>
              <th>When</th>
              <th className="num">Duration</th>
              <th>Commit</th>
            </tr>
          </thead>
          <tbody>
            {data.map((d) => (
              <tr
                key={d.id}
                className={`click ${open === d.id ? "sel" : ""}`}
                onClick={(e) => {
                  if (!(e.target as Element).closest("td[data-pick]")) setOpen(open === d.id ? null : d.id);
                }}
                data-deployment={d.id}
              >
                {/* A click in the compare cell picks the deployment, it does not open it. */}
                <td data-pick>
                  <input type="checkbox" aria-label={`compare ${d.id}`} checked={picked.includes(d.id)} onChange={() => pick(d.id)} />
                </td>
                <td>
                  <code>{d.id}</code>
                  {d.kind === "rollback" && (
                    <>
                      {" "}
                      <Badge>rollback to {d.rollbackOf}</Badge>
                    </>
                  )}
                  {d.noChangeSince && (
                    <>
                      {" "}
                      <Badge>nothing to do</Badge>
                    </>
                  )}
                </td>
                <td>
                  <StateBadge state={d.outcome} />
                </td>
                <td className="muted">{d.by ?? "–"}</td>
                <td>{fmtTime(d.startedAt)}</td>
                <td className="num">{fmtMs(d.durationMs)}</td>
                <td>
                  {d.git ? (
                    <>
                      <code>{d.git.commit.slice(0, 8)}</code>
                      {d.git.dirty && (
                        <>
                          {" "}
                          <Badge kind="warn">dirty</Badge>
                        </>
                      )}
                    </>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      {cmpError && (
        <div className="err-box" style={{ marginTop: 16 }}>
          {cmpError}
        </div>
      )}
      {cmp && (
        <Card
          title={
            <>
              Comparison <code>{cmp.from}</code> → <code>{cmp.to}</code>
            </>
          }
          right={
            <button type="button" className="btn" onClick={() => setCmp(null)}>
              Close
            </button>
          }
        >
          <div className="card-body" data-testid="comparison">
            <h4 style={{ margin: "0 0 8px" }}>Images</h4>
            {cmp.images.length === 0 ? (
              <p className="muted">No image changed.</p>
            ) : (
              <table className="t" style={{ marginBottom: 14 }}>
                <thead>
                  <tr>
                    <th>Service</th>
                    <th>Before</th>
                    <th>After</th>
                  </tr>
                </thead>
                <tbody>
                  {cmp.images.map((i) => (
                    <tr key={i.service}>
                      <td>
                        <b>{i.service}</b>
                      </td>
                      <td>
                        <code className="small">{i.from ?? "–"}</code>
                      </td>
                      <td>
                        <code className="small">{i.to ?? "–"}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h4 style={{ margin: "8px 0" }}>platform.yml</h4>
            {cmp.config.every((p) => p.kind === "same") ? (
              <p className="muted">Configuration unchanged.</p>
            ) : (
              <ConfigDiff parts={cmp.config} />
            )}
          </div>
        </Card>
      )}
      {open && data.find((d) => d.id === open) && (
        <Card
          title={
            <>
              Deployment <code>{open}</code>
            </>
          }
        >
          <Detail d={data.find((d) => d.id === open)!} />
        </Card>
      )}
    </>
  );
}
