import { docker, unlessGone } from "./docker-client.js";
import type { ResourceHandler } from "./handler.js";

/**
 * platform:docker:Volume: a named volume. With `retain`, deleting the resource keeps the data
 * (retention: permanent); a later create with the same name adopts it, so a destroy followed
 * by a deploy finds its rows again. `platform destroy --delete-data` removes retained volumes.
 */
export const volumeHandler: ResourceHandler = {
  inputKeys: ["name", "labels"],
  updatable: ["retain"],

  async create(_urn, inputs) {
    const name = String(inputs.name);
    const v = await docker().createVolume({
      Name: name,
      Labels: { ...(inputs.labels as Record<string, string>), "platform.managed": "true" },
    });
    return { id: (v as unknown as { Name: string }).Name ?? name, outs: { volumeName: name } };
  },

  async read(id) {
    const info = await unlessGone(() => docker().getVolume(id).inspect());
    return info && { volumeName: id };
  },

  async update(_id, _olds, news) {
    return { volumeName: news.name };
  },

  async delete(id, props) {
    if (props.retain === true) return;
    await unlessGone(() => docker().getVolume(id).remove());
  },
};
