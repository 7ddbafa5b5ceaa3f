import { useEffect, useMemo, useRef, useState } from "react";
import type { Scope } from "../scope";
import { type LogEvents, type LogLine, eventsUrl, get } from "../api";
import { DocsLink, Segmented } from "../components/ui";
import { colorOf } from "../format";
import { useData } from "../hooks";

const SINCE = [
  { value: "300", label: "5m" },
  { value: "3600", label: "1h" },
  { value: "86400", label: "24h" },
  { value: "0", label: "all" },
] as const;
const MAX_LINES = 5000;

/** A line as received, numbered in order of arrival: its key in the list, which is re-sorted and trimmed. */
type Line = LogLine & { seq: number };

export function LogsPage({ project, env }: Scope) {
  const services = useData(() => get("/api/projects/:project/envs/:env", { project, env }), [project, env]);
  const names = useMemo(() => services.data?.services.filter((s) => s.state !== "not deployed").map((s) => s.name) ?? [], [services.data]);
  const [picked, setPicked] = useState<string[] | null>(null);
  const chosen = picked ?? names;
  const [since, setSince] = useState<string>("3600");
  const [follow, setFollow] = useState(true);
  const [filter, setFilter] = useState("");
  const [lines, setLines] = useState<Line[]>([]);
  const [live, setLive] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  // The chosen services as one string, the effect's dependency: `chosen` is a new array at each render.
  const chosenKey = chosen.join(",");

  useEffect(() => {
    if (chosenKey === "") return;
    setLines([]);
    const sinceSec = since === "0" ? 0 : Math.floor(Date.now() / 1000) - Number(since);
    const query = { services: chosenKey, since: sinceSec, tail: 1000, follow: follow ? 1 : 0 } as const;
    const es = new EventSource(eventsUrl("/api/projects/:project/envs/:env/logs", { project, env }, query));
    let pending: Line[] = [];
    let seq = 0;
    const flush = setInterval(() => {
      if (!pending.length) return;
      const batch = pending;
      pending = [];
      // Lines of several services arrive in bursts: kept in time order.
      setLines((old) => [...old, ...batch].sort((a, b) => a.ts.localeCompare(b.ts)).slice(-MAX_LINES));
    }, 150);
    es.addEventListener("open", () => setLive(true));
    // The server writes each event's data from LogEvents (api-types.ts).
    es.addEventListener("line", (e) => {
      pending.push({ ...(JSON.parse((e as MessageEvent<string>).data) as LogEvents["line"]), seq: seq++ });
    });
    es.addEventListener("end", () => {
      setLive(false);
      es.close();
    });
    es.onerror = () => setLive(false);
    return () => {
      es.close();
      clearInterval(flush);
      setLive(false);
    };
  }, [project, env, chosenKey, since, follow]);

  const needle = filter.toLowerCase();
  const shown = needle ? lines.filter((l) => l.line.toLowerCase().includes(needle)) : lines;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the effect scrolls the box that renders `shown`: it runs again after each new `shown`
  useEffect(() => {
    const el = box.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [shown, follow]);
  const toggle = (n: string) => setPicked(chosen.includes(n) ? chosen.filter((x) => x !== n) : [...chosen, n]);
  return (
    <>
      <div className="row" style={{ marginBottom: 12 }}>
        {names.map((n) => (
          <label
            key={n}
            className={`chk ${chosen.includes(n) ? "on" : ""}`}
            style={{ color: chosen.includes(n) ? colorOf(n, names) : undefined }}
          >
            <input type="checkbox" checked={chosen.includes(n)} onChange={() => toggle(n)} style={{ display: "none" }} />
            <span className="dot" style={{ background: colorOf(n, names) }} />
            {n}
          </label>
        ))}
        <span className="spacer" />
        <input className="in" placeholder="Filter lines…" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Filter" />
        <span className="muted small">since</span>
        <Segmented value={since} options={SINCE} onChange={setSince} />
        <label className={`chk ${follow ? "on" : ""}`}>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <span className={`badge ${live ? "ok" : ""}`}>{live ? "● live" : "○ idle"}</span>
      </div>
      <div className="logs" ref={box} data-testid="logs">
        {shown.length === 0 && (
          <div className="empty">
            {lines.length ? "No line matches the filter." : "No log lines in this range."}{" "}
            <DocsLink page="guide/studio.html#pages">The logs page →</DocsLink>
          </div>
        )}
        {shown.map((l) => (
          <div key={l.seq} className={`logline ${l.stream}`}>
            <span className="muted">{l.ts ? new Date(l.ts).toLocaleTimeString(undefined, { hour12: false }) : ""}</span>
            <span className="svc" style={{ color: colorOf(l.service, names) }}>
              {l.service}
            </span>
            <span className="msg">{l.line}</span>
          </div>
        ))}
      </div>
    </>
  );
}
