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

export function Loading({ error, loading }: { error?: string; loading: boolean }) {
  if (error) return <div className="err-box">{error}</div>;
  return loading ? <div className="empty">Loading…</div> : null;
}
