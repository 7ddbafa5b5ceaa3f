import { didYouMeanSuffix, listNames } from "./did-you-mean.js";
import type { ConfigView } from "./model.js";
import type { FoundTemplates } from "./rules-references.js";
import type { DiagnosticSink } from "./sink.js";

/**
 * depends_on: every name known, no self edge, no cycle (only depends_on orders startup; a
 * reference alone is not an edge). Also the warnings that need the whole graph.
 */
export function validateGraph(view: ConfigView, found: FoundTemplates, sink: DiagnosticSink): void {
  const names = view.services.map((s) => s.name);
  const edges = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const svc of view.services) {
    const seen = new Set<string>();
    for (const dep of svc.dependsOn) {
      if (sink.full) break;
      const path = ["services", svc.name, "depends_on", dep.index];
      if (dep.name === svc.name) {
        sink.error({ path, code: "self-dependency", message: `${svc.name} depends on itself`, hint: "remove it from depends_on" });
      } else if (!view.byName.has(dep.name)) {
        sink.error({
          path,
          code: "unknown-service",
          message: `unknown service "${dep.name}"${didYouMeanSuffix(dep.name, names)}`,
          hint: `services in this file: ${listNames(names)}`,
        });
      } else if (seen.has(dep.name)) {
        sink.warn({ path, code: "duplicate-dependency", message: `"${dep.name}" is listed twice`, hint: "remove the second entry" });
      } else edges.get(svc.name)?.push(dep.name);
      seen.add(dep.name);
    }
  }
  for (const cycle of findCycles(names, edges)) {
    const [start, next] = cycle;
    const svc = start === undefined ? undefined : view.byName.get(start);
    const index = svc?.dependsOn.find((d) => d.name === next)?.index ?? 0;
    sink.error({
      path: ["services", start ?? "", "depends_on", index],
      code: "dependency-cycle",
      message: `dependency cycle: ${cycle.join(" -> ")}`,
      hint: "services start in depends_on order, so these can never start; remove one of these depends_on entries (a ${x.url} reference alone needs no depends_on)",
    });
  }
  warnUnused(view, found, sink);
  warnMissingDependency(view, found, edges, sink);
}

/** One cycle per strongly connected component, starting at its first service in file order. */
export function findCycles(names: string[], edges: Map<string, string[]>): string[][] {
  const order = new Map(names.map((n, i) => [n, i]));
  const sccs = stronglyConnected(names, edges).filter((c) => c.length > 1);
  return sccs.map((members) => {
    const inside = new Set(members);
    const start = [...members].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0))[0]!;
    // Shortest way from start back to start inside the component, found breadth-first.
    const prev = new Map<string, string>();
    const queue = [start];
    for (let i = 0; i < queue.length; i++) {
      const at = queue[i]!;
      for (const next of edges.get(at) ?? []) {
        if (!inside.has(next)) continue;
        if (next === start) {
          const path = [at];
          while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
          return [...path, start];
        }
        if (!prev.has(next)) {
          prev.set(next, at);
          queue.push(next);
        }
      }
    }
    return [start, start];
  });
}

/** Kosaraju, iterative: a file may hold many services and recursion depth must not depend on it. */
function stronglyConnected(names: string[], edges: Map<string, string[]>): string[][] {
  const finished: string[] = [];
  const visited = new Set<string>();
  for (const root of names) {
    if (visited.has(root)) continue;
    const stack: Array<[string, number]> = [[root, 0]];
    visited.add(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = (edges.get(top[0]) ?? [])[top[1]++];
      if (next === undefined) {
        finished.push(top[0]);
        stack.pop();
      } else if (!visited.has(next)) {
        visited.add(next);
        stack.push([next, 0]);
      }
    }
  }
  const reverse = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const [from, tos] of edges) for (const to of tos) reverse.get(to)?.push(from);
  const assigned = new Set<string>();
  const out: string[][] = [];
  for (const root of finished.reverse()) {
    if (assigned.has(root)) continue;
    const comp: string[] = [];
    const stack = [root];
    assigned.add(root);
    while (stack.length > 0) {
      const n = stack.pop()!;
      comp.push(n);
      for (const m of reverse.get(n) ?? []) {
        if (assigned.has(m)) continue;
        assigned.add(m);
        stack.push(m);
      }
    }
    out.push(comp);
  }
  return out;
}

function warnUnused(view: ConfigView, found: FoundTemplates, sink: DiagnosticSink): void {
  const referenced = new Set(found.refs.filter((r) => r.from.name !== r.service).map((r) => r.service));
  const dependedOn = new Set(view.services.flatMap((s) => s.dependsOn.filter((d) => d.name !== s.name).map((d) => d.name)));
  for (const svc of view.services) {
    const path = ["services", svc.name];
    if ((svc.type === "postgres" || svc.type === "redis") && !referenced.has(svc.name)) {
      sink.warn({
        path,
        code: "unused-database",
        message: `no service refers to this ${svc.type === "redis" ? "Redis" : "database"} (\${${svc.name}.url})`,
        hint: `give its connection string to a service, e.g. ${svc.type === "redis" ? "REDIS_URL" : "DATABASE_URL"}: \${${svc.name}.url}`,
        at: "key",
      });
    } else if (
      svc.type &&
      svc.type !== "postgres" &&
      svc.type !== "redis" &&
      svc.type !== "worker" &&
      svc.isPublic === false &&
      !referenced.has(svc.name) &&
      !dependedOn.has(svc.name)
    ) {
      sink.warn({
        path,
        code: "unused-service",
        message: `${svc.name} is not public and no service depends on it or refers to it`,
        hint: `set public: true to give it a URL, or pass \${${svc.name}.url} to the service that calls it`,
        at: "key",
      });
    }
  }
}

/** A service that reads another's URL usually calls it at startup: it should start after it. */
function warnMissingDependency(view: ConfigView, found: FoundTemplates, edges: Map<string, string[]>, sink: DiagnosticSink): void {
  const reachable = new Map<string, Set<string>>();
  const reach = (from: string, to: string): boolean => {
    let seen = reachable.get(from);
    if (!seen) {
      seen = new Set();
      const stack = [from];
      while (stack.length > 0) {
        for (const n of edges.get(stack.pop()!) ?? []) {
          if (seen.has(n)) continue;
          seen.add(n);
          stack.push(n);
        }
      }
      reachable.set(from, seen);
    }
    return seen.has(to);
  };
  const warned = new Set<string>();
  for (const ref of found.refs) {
    const from = ref.from.name;
    if (ref.property === "external_url" || ref.service === from || !view.byName.has(ref.service)) continue;
    if (warned.has(`${from}>${ref.service}`) || reach(from, ref.service) || reach(ref.service, from)) continue;
    warned.add(`${from}>${ref.service}`);
    const path = ["services", from, "env", ref.key];
    sink.warn({
      path,
      code: "missing-dependency",
      message: `${from} uses ${ref.text} but does not depend on ${ref.service}, so it may start first`,
      hint: `add ${ref.service} to depends_on of ${from}`,
      at: { offset: sink.locator.offsetInString(path, ref.value, ref.index) },
    });
  }
}
