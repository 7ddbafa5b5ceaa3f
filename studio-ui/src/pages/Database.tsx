import { useEffect, useState } from "react";
import type { Scope } from "../scope";
import { type DbInfo, type QueryResult, type TableInfo, get, post } from "../api";
import { Badge, Card, DocsLink, Loading } from "../components/ui";
import { useData } from "../hooks";

const PAGE = 100;
const DB = "/api/projects/:project/envs/:env/db/:service";
type Db = { project: string; env: string; service: string };

function Connection({ db, info }: { db: Db; info: DbInfo }) {
  const [password, setPassword] = useState<string | null>(null);
  const reveal = () => (password ? setPassword(null) : void get(`${DB}/password`, db).then((r) => setPassword(r.password)));
  return (
    <Card title="Connection">
      <div className="card-body kv narrow" data-testid="connection">
        <span className="k">Host</span>
        <code>
          {info.host}:{info.port}
        </code>
        <span className="k">Database</span>
        <code>{info.database}</code>
        <span className="k">User</span>
        <code>{info.user}</code>
        <span className="k">Password</span>
        <span className="row">
          <code data-testid="password">{password ?? "••••••••••••"}</code>
          <button type="button" className="btn" onClick={reveal}>
            {password ? "Hide" : "Reveal"}
          </button>
          {password && (
            <button type="button" className="btn" onClick={() => void navigator.clipboard?.writeText(password)}>
              Copy
            </button>
          )}
        </span>
        <span className="k">Terminal</span>
        <code>platform db connect {db.service}</code>
      </div>
    </Card>
  );
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 ** 2).toFixed(1)} MB`);
const utc = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$/, "Z");

/** The service's backups (newest first) and its schedule: what platform db backups says. */
function Backups({ db }: { db: Db }) {
  const view = useData(() => get(`${DB}/backups`, db), [db.project, db.env, db.service]);
  if (!view.data) return <Loading error={view.error} loading={view.loading} />;
  const { backups, schedule, window } = view.data;
  return (
    <Card title="Backups" right={<code>platform db backup {db.service}</code>}>
      <div className="card-body muted" data-testid="backup-schedule">
        {schedule
          ? `Scheduled ${schedule.cron} (UTC)${schedule.keep ? `, keep ${schedule.keep}` : ""}; next ${schedule.next ? utc(schedule.next) : "never"}, made while platform db scheduler runs`
          : "No schedule: set backup.schedule on this service in platform.yml"}
      </div>
      <div className="card-body muted" data-testid="recovery-window">
        {window
          ? `Point-in-time window: ${utc(window.from)} to ${window.to ? utc(window.to) : "? (database not running)"} (UTC; ${window.baseBackups} base backup${window.baseBackups === 1 ? "" : "s"}${window.archive ? `, WAL archive ${window.archive.segments} segments, ${size(window.archive.bytes)}` : ""}); the newest ${window.archiveTimeoutSeconds} s of writes may not be archived yet. Restore with platform db restore ${db.service} --to-time TIME`
          : "No point-in-time window yet: platform db backup makes a base backup when the database archives its WAL"}
      </div>
      <table className="t" data-testid="backups">
        <tbody>
          {backups.map((b) => (
            <tr key={b.id}>
              <td>
                <code>{b.id}</code>
              </td>
              <td className="muted">{b.base ? `${b.kind}, base` : b.kind}</td>
              <td className="muted">{utc(b.createdAt)}</td>
              <td className="num muted">{size(b.bytes)}</td>
              <td>
                {b.restored ? (
                  <Badge kind="ok">
                    verified: restored, {b.restored.tables} {b.restored.tables === 1 ? "table" : "tables"}, {b.restored.rows}{" "}
                    {b.restored.rows === 1 ? "row" : "rows"}
                  </Badge>
                ) : b.verified ? (
                  <Badge kind="ok">verified</Badge>
                ) : (
                  <Badge kind="warn">not verified</Badge>
                )}
              </td>
            </tr>
          ))}
          {backups.length === 0 && (
            <tr>
              <td className="muted">No backups yet.</td>
            </tr>
          )}
        </tbody>
      </table>
    </Card>
  );
}

export function DatabasePage({ project, env }: Scope) {
  const envView = useData(() => get("/api/projects/:project/envs/:env", { project, env }), [project, env]);
  const dbs = envView.data?.services.filter((s) => s.type === "postgres") ?? [];
  const [service, setService] = useState<string>();
  const svc = service ?? dbs[0]?.name;
  const db: Db | undefined = svc ? { project, env, service: svc } : undefined;
  const info = useData(() => (db ? get(DB, db) : Promise.resolve(undefined)), [project, env, svc]);
  const tables = useData(() => (db ? get(`${DB}/tables`, db) : Promise.resolve<TableInfo[]>([])), [project, env, svc]);
  const [writes, setWrites] = useState(false);
  const [sql, setSql] = useState("SELECT now();");
  const [result, setResult] = useState<QueryResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  useEffect(() => {
    if (info.data) setWrites(info.data.writes);
  }, [info.data]);

  if (envView.data && dbs.length === 0)
    return (
      <Card>
        <div className="empty">
          This environment has no postgres service. <DocsLink page="guide/studio.html#database-console">The database console →</DocsLink>
        </div>
      </Card>
    );
  if (!info.data || !db) return <Loading error={info.error ?? envView.error} loading={info.loading || envView.loading} />;

  const run = (text = sql) => {
    setRunning(true);
    setError(null);
    post(`${DB}/query`, db, { sql: text }, { limit: PAGE })
      .then(
        (r) => {
          setResult(r);
          if (r.command !== "SELECT") tables.reload();
        },
        (e: Error) => {
          setError(e.message);
          setResult(null);
        },
      )
      .finally(() => setRunning(false));
  };
  const page = (offset: number) =>
    result &&
    get("/api/db-results/:id", { id: result.id }, { offset, limit: PAGE }).then((p) =>
      setResult({ ...result, rows: p.rows, offset: p.offset }),
    );
  const switchWrites = (on: boolean) => post(`${DB}/writes`, db, { enabled: on }).then((r) => setWrites(r.writes));
  const browse = (t: { schema: string; name: string }) => {
    const q = `SELECT * FROM "${t.schema}"."${t.name}" LIMIT 1000;`;
    setSql(q);
    run(q);
  };

  return (
    <>
      {dbs.length > 1 && (
        <div className="row" style={{ marginBottom: 12 }}>
          {dbs.map((d) => (
            <button type="button" key={d.name} className={`btn ${d.name === svc ? "primary" : ""}`} onClick={() => setService(d.name)}>
              {d.name}
            </button>
          ))}
        </div>
      )}
      <div className="split" style={{ gridTemplateColumns: "300px minmax(0, 1fr)" }}>
        <div className="stack">
          <Card
            title="Tables"
            right={
              <button type="button" className="btn" onClick={tables.reload}>
                ↻
              </button>
            }
          >
            <table className="t" data-testid="tables">
              <tbody>
                {(tables.data ?? []).map((t) => (
                  <tr key={`${t.schema}.${t.name}`} className="click" onClick={() => browse(t)}>
                    <td>
                      {t.schema !== "public" && <span className="muted">{t.schema}.</span>}
                      {t.name}
                    </td>
                    <td className="num muted">{t.rows.toLocaleString()}</td>
                  </tr>
                ))}
                {tables.data?.length === 0 && (
                  <tr>
                    <td className="muted">No tables.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </Card>
          <Connection db={db} info={info.data} />
        </div>
        <div className="stack">
          <Card
            title="SQL"
            right={
              <div className="row">
                {writes ? <Badge kind="warn">writes on for this session</Badge> : <Badge kind="ok">read-only</Badge>}
                <button type="button" className={`btn ${writes ? "" : "danger"}`} onClick={() => void switchWrites(!writes)}>
                  {writes ? "Back to read-only" : "Allow writes"}
                </button>
              </div>
            }
          >
            <div className="card-body">
              <textarea
                className="in"
                aria-label="SQL"
                value={sql}
                onChange={(e) => setSql(e.target.value)}
                onKeyDown={(e) => {
                  if ((e.ctrlKey || e.metaKey) && e.key === "Enter") run();
                }}
                spellCheck={false}
              />
              <div className="row" style={{ marginTop: 10 }}>
                <button type="button" className="btn primary" disabled={running} onClick={() => run()}>
                  {running ? "Running…" : "Run"}
                </button>
                <span className="muted small">
                  Ctrl+Enter · one statement per run · {writes ? "committed" : "in a READ ONLY transaction"} · 30 s timeout
                </span>
              </div>
            </div>
          </Card>
          {error && (
            <div className="err-box" style={{ marginTop: 16 }} data-testid="sql-error">
              {error}
            </div>
          )}
          {result && (
            <Card
              title={
                <>
                  {result.command}{" "}
                  <span className="muted small">
                    · {result.rowCount.toLocaleString()} row{result.rowCount === 1 ? "" : "s"} · {result.ms} ms
                    {result.truncated ? " · first 10,000 kept" : ""}
                  </span>
                </>
              }
              right={
                result.total > PAGE && (
                  <div className="row small">
                    <button type="button" className="btn" disabled={result.offset === 0} onClick={() => void page(result.offset - PAGE)}>
                      ‹ Prev
                    </button>
                    <span className="muted">
                      {result.offset + 1}–{Math.min(result.total, result.offset + PAGE)} of {result.total.toLocaleString()}
                    </span>
                    <button
                      type="button"
                      className="btn"
                      disabled={result.offset + PAGE >= result.total}
                      onClick={() => void page(result.offset + PAGE)}
                    >
                      Next ›
                    </button>
                  </div>
                )
              }
            >
              <div style={{ overflow: "auto", maxHeight: "55vh" }} data-testid="result">
                {result.columns.length === 0 ? (
                  <div className="ok-box" style={{ margin: 14 }}>
                    {result.command} {result.rowCount}
                  </div>
                ) : (
                  <table className="t raw mono">
                    {/* A result page is fixed once fetched (a new page replaces it); rows have no key of their own and names repeat
                        (SELECT 1, 1), so the position of a column, row or cell is its identity. */}
                    <thead>
                      <tr>
                        {result.columns.map((c, i) => (
                          // biome-ignore lint/suspicious/noArrayIndexKey: a column's position is its identity (see above)
                          <th key={i}>{c}</th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {result.rows.map((r, i) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: a row's position is its identity (see above)
                        <tr key={i}>
                          {r.map((v, j) => (
                            // biome-ignore lint/suspicious/noArrayIndexKey: a cell's position is its identity (see above)
                            <td key={j} className={v === null ? "muted" : ""}>
                              {v === null ? "NULL" : v.length > 200 ? `${v.slice(0, 200)}…` : v}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </div>
            </Card>
          )}
          <Backups db={db} />
        </div>
      </div>
    </>
  );
}
