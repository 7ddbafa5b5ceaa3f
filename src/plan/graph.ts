/**
 * Dependency order (Kahn's algorithm, ties broken by file order so plans are stable).
 * Config validation has already refused cycles and unknown names; this still fails loudly.
 */
export function orderByDependencies(names: readonly string[], deps: (name: string) => readonly string[]): string[] {
  const remaining = new Map(names.map((n) => [n, new Set(deps(n).filter((d) => names.includes(d)))]));
  const order: string[] = [];
  while (remaining.size > 0) {
    const ready = names.find((n) => remaining.get(n)?.size === 0);
    if (ready === undefined) throw new Error(`dependency cycle among: ${[...remaining.keys()].join(", ")}`);
    order.push(ready);
    remaining.delete(ready);
    for (const pending of remaining.values()) pending.delete(ready);
  }
  return order;
}
