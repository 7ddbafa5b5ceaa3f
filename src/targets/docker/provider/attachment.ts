import { joinNetwork, leaveNetwork } from "./docker-client.js";
import type { ResourceHandler } from "./handler.js";

/**
 * create, update and delete of a resource that joins one container shared by every
 * application on the engine (the edge, the telemetry receiver) to one application's network.
 * `ensure` makes the container as the inputs want it and returns its id; a delete only detaches.
 */
export function buildAttachmentMethods(container: string, outKey: string, ensure: (inputs: Record<string, unknown>) => Promise<string>): Pick<ResourceHandler, "create" | "update" | "delete"> {
  const attach = async (inputs: Record<string, unknown>) => joinNetwork(String(inputs.network), await ensure(inputs));
  return {
    async create(_urn, inputs) {
      await attach(inputs);
      return { id: `${container}@${String(inputs.network)}`, outs: { [outKey]: container } };
    },
    async update(_id, _olds, news) {
      await attach(news);
      return { [outKey]: container };
    },
    async delete(_id, props) {
      await leaveNetwork(String(props.network), container);
    },
  };
}
