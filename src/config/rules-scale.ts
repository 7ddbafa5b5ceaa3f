import { isRecord, type ConfigView } from "./model.js";
import type { DiagnosticSink } from "./sink.js";

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/**
 * `scale:` beside the rest of a service: not on data services (one server on one volume), not
 * with replicas (both would set the number of copies: scale.min is the fixed part), and max at
 * least min. The ranges of each number are zod's (service-extras-schema.ts).
 */
export function validateScale(view: ConfigView, sink: DiagnosticSink): void {
  for (const svc of view.services) {
    if (!Object.hasOwn(svc.raw, "scale")) continue;
    const base = ["services", svc.name, "scale"];
    if (svc.type === "postgres" || svc.type === "redis") {
      sink.error({
        path: base,
        code: "data-scale",
        message: `a ${svc.type} service runs one server on its volume: it takes no scale`,
        hint: "remove scale; give scale to the services that use it",
        at: "key",
      });
      continue;
    }
    if (Object.hasOwn(svc.raw, "replicas"))
      sink.error({
        path: ["services", svc.name, "replicas"],
        code: "scale-and-replicas",
        message: "has both replicas and scale: scale sets the number of copies, from scale.min to scale.max",
        hint: "remove replicas, and give the fewest copies as scale.min (replicas: 3 is scale: {min: 3, max: 3})",
        at: "key",
      });
    const scale = svc.raw.scale;
    if (!isRecord(scale)) continue;
    const min = scale.min === undefined ? 1 : scale.min;
    if (isInt(min) && isInt(scale.max) && scale.max < min)
      sink.error({
        path: [...base, "max"],
        code: "scale-range",
        message: `max ${scale.max} is below min ${min}`,
        hint: `use max: ${min} or more (max is the most copies, min the fewest)`,
      });
  }
}
