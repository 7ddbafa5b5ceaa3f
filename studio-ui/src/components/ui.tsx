import type { ReactNode } from "react";

export function Card({
  title,
  right,
  children,
  className,
}: {
  title?: ReactNode;
  right?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card ${className ?? ""}`}>
      {title !== undefined && (
        <div className="card-head">
          <h3>{title}</h3>
          {right}
        </div>
      )}
      {children}
    </section>
  );
}

export function Badge({ kind, children }: { kind?: "ok" | "err" | "warn"; children: ReactNode }) {
  return <span className={`badge ${kind ?? ""}`}>{children}</span>;
}

const OUTCOME: Record<string, "ok" | "err" | "warn" | undefined> = {
  succeeded: "ok",
  healthy: "ok",
  running: "ok",
  failed: "err",
  unhealthy: "err",
  exited: "err",
  stopped: "err",
  interrupted: "warn",
  canceled: "warn",
  "not deployed": undefined,
};
export const StateBadge = ({ state }: { state: string }) => <Badge kind={OUTCOME[state]}>{state}</Badge>;

export function Segmented<T extends string>({
  value,
  options,
  onChange,
}: {
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (v: T) => void;
}) {
  return (
    <div className="seg">
      {options.map((o) => (
        <button type="button" key={o.value} className={o.value === value ? "on" : ""} onClick={() => onChange(o.value)}>
          {o.label}
        </button>
      ))}
    </div>
  );
}

/**
 * A link to the docs page that explains what is shown: Studio serves the docs site at /docs/
 * (src/studio/docs-site.ts). `page` is the built page and its anchor, e.g. "guide/studio.html#pages";
 * test/unit/studio/docs-links.test.ts checks that each one exists.
 */
export function DocsLink({ page, children }: { page: string; children?: ReactNode }) {
  return (
    <a className="docs-link" href={`/docs/${page}`} target="_blank" rel="noopener noreferrer" data-testid="docs-link">
      {children ?? "Read more in the docs →"}
    </a>
  );
}

export function Loading({ error, loading }: { error?: string; loading: boolean }) {
  if (error)
    return (
      <div className="err-box">
        {error}
        <div className="err-help">
          <DocsLink page="guide/when-things-go-wrong.html">What to do when something goes wrong →</DocsLink>
        </div>
      </div>
    );
  return loading ? <div className="empty">Loading…</div> : null;
}
