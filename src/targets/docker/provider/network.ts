import { docker, unlessGone } from "./docker-client.js";
import type { ResourceHandler } from "./handler.js";

/** platform:docker:Network: a user-defined bridge network (containers find each other by alias on it). */
export const networkHandler: ResourceHandler = {
  inputKeys: ["name", "labels", "internal"],

  async create(_urn, inputs) {
    const name = String(inputs.name);
    const existing = await docker().listNetworks({ filters: { name: [name] } });
    const same = existing.find((n) => n.Name === name);
    // Adopting an existing network of the same name keeps a re-created stack working after a lost state.
    const id = same ? same.Id : (await docker().createNetwork({
      Name: name,
      Driver: "bridge",
      CheckDuplicate: true,
      Internal: inputs.internal === true,
      Labels: { ...(inputs.labels as Record<string, string>), "platform.managed": "true" },
    })).id;
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
