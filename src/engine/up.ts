import type { EngineEvent, OutputMap, Stack, UpOptions, UpResult, UpdateSummary } from "@pulumi/pulumi/automation/index.js";

type FollowUps = { outputs: Stack["outputs"]; info: Stack["info"] };

/**
 * `stack.up()` without the Automation API's three CLI calls after the engine is done (`stack
 * output` twice and `stack history`, 0.75 s or more per deploy): the engine's own events
 * already carry the stack's outputs (the root resource's outputs event) and the change counts
 * (the summary event). When an event is missing, the API's own call answers as before.
 * Secret outputs come as "[secret]" in events: callers only read plain ones (public URLs).
 */
export async function upWithoutFollowUps(stack: Stack, opts: UpOptions): Promise<UpResult> {
  let outputs: OutputMap | undefined;
  let changes: UpdateSummary["resourceChanges"] | undefined;
  const onEvent = (e: EngineEvent) => {
    if (e.summaryEvent) changes = e.summaryEvent.resourceChanges;
    const meta = e.resOutputsEvent?.metadata;
    if (meta?.type === "pulumi:pulumi:Stack") {
      const values = (meta.new?.outputs ?? {}) as Record<string, unknown>;
      outputs = Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value, secret: value === "[secret]" }]));
    }
    opts.onEvent?.(e);
  };
  const own = stack as unknown as FollowUps;
  const api = { outputs: own.outputs, info: own.info };
  own.outputs = async () => outputs ?? api.outputs.call(stack);
  own.info = async (showSecrets?: boolean) =>
    changes ? ({ resourceChanges: changes } as UpdateSummary) : api.info.call(stack, showSecrets);
  try {
    return await stack.up({ ...opts, onEvent });
  } finally {
    // The prototype's methods again.
    delete (own as Partial<FollowUps>).outputs;
    delete (own as Partial<FollowUps>).info;
  }
}
