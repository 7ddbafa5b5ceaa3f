/** How progress is shown, a pure function of options and environment (after lint-staged). */
export type RendererKind = "json" | "tty" | "plain";

export function pickRenderer(o: { json?: boolean }, env: NodeJS.ProcessEnv, isTTY: boolean): RendererKind {
  if (o.json) return "json";
  if (!isTTY || env.CI === "true" || env.TERM === "dumb" || env.PLATFORM_PLAIN === "1") return "plain";
  return "tty";
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
