import { z } from "zod";

export const DEFAULT_SAMPLE_RATIO = 1;

export const telemetry = z
  .strictObject({
    sample_ratio: z
      .number()
      .min(0)
      .max(1)
      .default(DEFAULT_SAMPLE_RATIO)
      .describe(
        "Share of new traces that are recorded, from 0 (none) to 1 (all): OTEL_TRACES_SAMPLER=parentbased_traceidratio with this ratio, so a trace is kept or dropped whole across services. Per-route request rates, latencies and status codes come from metrics, which are never sampled. Default 1.",
      )
      .meta({ examples: [0.1] }),
  })
  .describe("OpenTelemetry settings the platform injects into every fastapi and nextjs service (see docs/guide/telemetry.md). Optional.")
  .meta({ examples: [{ sample_ratio: 0.1 }] });
