import { docker, unlessGone } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";
import { decideNetwork, type Labels } from "./ownership.js";

/** platform:docker:Network: a user-defined bridge network (containers find each other by alias on it). */
export const networkHandler: ResourceHandler = {
  inputKeys: ["name", "labels", "internal"],

  async create(_urn, inputs) {
    const name = String(inputs.name);
    const labels = inputs.labels as Labels;
    const existing = (await docker().listNetworks({ filters: { name: [name] } })).find((n) => n.Name === name);
    // Adopting this stack's own network keeps a re-created stack working after a lost state.
    const decision = decideNetwork(name, existing, labels);
    if (decision.kind === "refuse") throw new Error(decision.message);
    const id =
      existing && decision.kind === "adopt"
        ? existing.Id
        : (
            await docker().createNetwork({
              Name: name,
              Driver: "bridge",
              CheckDuplicate: true,
              Internal: inputs.internal === true,
              Labels: { ...labels, "platform.managed": "true" },
            })
          ).id;
    return { id, outs: { networkId: id } };
  },

  async read(id) {
    const info = await unlessGone(() => docker().getNetwork(id).inspect());
    return info && { networkId: info.Id };
  },

  async delete(id) {
    await unlessGone(() => docker().getNetwork(id).remove());
  },
};
