import { docker } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";

/**
 * create, update and delete of a resource that joins one container shared by every
 * application on the engine (the edge, the telemetry receiver) to one application's network.
 * `ensure` makes the container as the inputs want it and returns its id; a delete only detaches.
 */
export function buildAttachmentMethods(
  name: string | (() => string | string[]),
  outKey: string,
  ensure: (inputs: Record<string, unknown>) => Promise<string>,
): Pick<ResourceHandler, "create" | "update" | "delete"> {
  // A function when the name comes from the environment (PLATFORM_EDGE_NAME), read at each call;
  // several names when the container that joins may be one of them (the edge's resolver or the
  // edge itself): the first is the output, a delete takes each off the network.
  const names = () => [typeof name === "string" ? name : name()].flat();
  const containerName = () => names()[0] as string;
  const attach = async (inputs: Record<string, unknown>) => joinNetwork(String(inputs.network), await ensure(inputs));
  return {
    async create(_urn, inputs) {
      await attach(inputs);
      return { id: `${containerName()}@${String(inputs.network)}`, outs: { [outKey]: containerName() } };
    },
    async update(_id, _olds, news) {
      await attach(news);
      return { [outKey]: containerName() };
    },
    async delete(_id, props) {
      for (const n of names()) await leaveNetwork(String(props.network), n);
    },
  };
}

/**
 * Joins a shared container (the edge, the telemetry receiver) to an application's network.
 * Already attached (a re-created stack, or a new one that took over the networks) is the state
 * we want.
 */
export async function joinNetwork(network: string, container: string): Promise<void> {
  try {
    await docker().getNetwork(network).connect({ Container: container });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 403) throw err;
  }
}

/** Detaches a shared container from an application's network; either being gone already is fine. */
export async function leaveNetwork(network: string, container: string): Promise<void> {
  try {
    await docker().getNetwork(network).disconnect({ Container: container, Force: true });
  } catch (err) {
    const code = (err as { statusCode?: number }).statusCode;
    if (code !== 404 && code !== 403 && code !== 500) throw err;
  }
}
