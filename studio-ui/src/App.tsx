import { useEffect, useState } from "react";
import { type EnvState, get, setUnauthorizedHandler } from "./api";
import { useData, usePath } from "./hooks";
import { DatabasePage } from "./pages/Database";
import { DeploymentsPage } from "./pages/Deployments";
import { LogsPage } from "./pages/Logs";
import { MetricsPage } from "./pages/Metrics";
import { ResourcesPage } from "./pages/Resources";
import { ServicesPage } from "./pages/Services";
import { TracePage } from "./pages/Trace";

import type { Scope } from "./scope";

const TABS = [
  { id: "", label: "Services" },
  { id: "logs", label: "Logs" },
  { id: "deployments", label: "Deployments" },
  { id: "resources", label: "CPU & memory" },
  { id: "database", label: "Database" },
  { id: "metrics", label: "Metrics" },
];

const ENV_STATES: Record<EnvState, { color: string; title: string }> = {
  running: { color: "var(--ok)", title: "running" },
  deploying: { color: "var(--accent)", title: "deploying" },
  degraded: { color: "var(--warn)", title: "a service is not running, or the last deployment failed" },
  stopped: { color: "var(--muted)", title: "nothing running on this engine (destroyed or stopped)" },
};

function SignIn() {
  return (
    <div className="center">
      <div className="card" style={{ maxWidth: 460, padding: 28 }}>
        <div className="brand" style={{ border: 0, justifyContent: "center" }}>
          <span className="logo" />
          Studio
        </div>
        <p>You are not signed in.</p>
        <p className="muted">
          Run <code>platform studio</code> in a terminal and open the one-time link it prints. Links work once and expire after ten minutes.
        </p>
      </div>
    </div>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState(document.documentElement.dataset.theme ?? "dark");
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("studio-theme", theme);
  }, [theme]);
  return (
    <button type="button" className="btn" title="Switch theme" onClick={() => setTheme(theme === "dark" ? "light" : "dark")}>
      {theme === "dark" ? "☀ Light" : "☾ Dark"}
    </button>
  );
}

export function App() {
  const [signedOut, setSignedOut] = useState(false);
  const [path, go] = usePath();
  useEffect(() => setUnauthorizedHandler(() => setSignedOut(true)), []);
  const projects = useData(() => get("/api/projects", {}), [], 15_000);
  const url = new URL(path, location.origin);
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const inEnv = parts[0] === "projects" && parts.length >= 3;
  const [project, env, tab = "", sub] = inEnv ? parts.slice(1) : [];

  useEffect(() => {
    const first = projects.data?.[0];
    if (!inEnv && first) go(`/projects/${encodeURIComponent(first.name)}/${encodeURIComponent(first.envs[0]!)}`);
  }, [inEnv, projects.data, go]);

  // The sidebar lists every project of the machine: keep the open one in view.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect reads the DOM, not these values: it must run again when the active link changes (project, env) or the list is re-rendered (projects.data)
  useEffect(() => {
    document.querySelector(".nav .env.active")?.scrollIntoView({ block: "nearest" });
  }, [project, env, projects.data]);

  if (signedOut) return <SignIn />;
  const base = inEnv ? `/projects/${encodeURIComponent(project!)}/${encodeURIComponent(env!)}` : "";
  const scope: Scope | undefined = inEnv ? { project: project!, env: env!, go, query: url.searchParams } : undefined;
  const link = (to: string) => (e: React.MouseEvent) => {
    e.preventDefault();
    go(to);
  };

  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="brand">
          <span className="logo" />
          Studio <small>platform</small>
        </div>
        <nav className="nav">
          <h4>Projects</h4>
          {projects.data?.length === 0 && (
            <div className="muted small" style={{ padding: "4px 10px" }}>
              No deployments yet: run <code>platform deploy</code>.
            </div>
          )}
          {projects.data?.map((p) => (
            <div key={p.name}>
              <div className="proj">{p.name}</div>
              {p.envs.map((e) => {
                const to = `/projects/${encodeURIComponent(p.name)}/${encodeURIComponent(e)}`;
                return (
                  <a key={e} href={to} onClick={link(to)} className={`env ${p.name === project && e === env ? "active" : ""}`}>
                    <span
                      className="dot"
                      title={ENV_STATES[p.states[e] ?? "stopped"].title}
                      style={{ background: ENV_STATES[p.states[e] ?? "stopped"].color }}
                    />
                    {e}
                  </a>
                );
              })}
            </div>
          ))}
        </nav>
        <footer>
          <ThemeToggle />
        </footer>
      </aside>
      <main className="main">
        {scope ? (
          <>
            <div className="topbar">
              <h1>{project}</h1>
              <span className="crumb">/ {env}</span>
            </div>
            <div className="tabs" role="tablist">
              {TABS.map((t) => {
                const to = t.id ? `${base}/${t.id}` : base;
                const active = tab === t.id || (t.id === "metrics" && tab === "traces");
                return (
                  <a key={t.id} role="tab" aria-selected={active} href={to} onClick={link(to)} className={`tab ${active ? "active" : ""}`}>
                    {t.label}
                  </a>
                );
              })}
            </div>
            <div className="content">
              {tab === "" && <ServicesPage {...scope} />}
              {tab === "logs" && <LogsPage {...scope} />}
              {tab === "deployments" && <DeploymentsPage {...scope} />}
              {tab === "resources" && <ResourcesPage {...scope} />}
              {tab === "database" && <DatabasePage {...scope} />}
              {tab === "metrics" && <MetricsPage {...scope} />}
              {tab === "traces" && sub && <TracePage {...scope} traceId={sub} />}
            </div>
          </>
        ) : (
          <div className="center muted">
            {projects.loading
              ? "Loading…"
              : projects.error
                ? projects.error
                : "No project deployed yet. Run platform deploy in a project directory."}
          </div>
        )}
      </main>
    </div>
  );
}
