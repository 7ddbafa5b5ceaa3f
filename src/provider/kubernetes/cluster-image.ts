import { importArchiveStream, hasImage, nodeRuntimes } from "../../test-cluster/images.js";
import { clusterLayout, readClusterToolchain } from "../../test-cluster/layout.js";
import { docker } from "../../docker-client.js";
import type { ResourceHandler } from "../handler.js";
import { imageToPlace } from "./tag-as.js";

function toolchain() {
  const tc = readClusterToolchain();
  if (!tc) throw new Error("the test cluster's toolchain is missing: run `platform cluster up`");
  return tc;
}

/**
 * platform:kubernetes:ClusterImage: an image of the Docker engine (built by BuildKit, or a base
 * image) copied into the containerd of each of the test cluster's nodes, where pods run it with
 * imagePullPolicy Never.
 * Its id is the image reference. Deleting it leaves the image: tags carry their inputs hash, so
 * the environments of a project share them, and the cluster never pulls one back.
 */
export const clusterImageHandler: ResourceHandler = {
  inputKeys: ["image", "tagAs"],

  async create(_urn, inputs) {
    const image = await imageToPlace(inputs);
    const tc = toolchain();
    for (const l of nodeRuntimes(clusterLayout())) {
      if (await hasImage(l, tc, image)) continue;
      const archive = await docker().getImage(image).get();
      let err = "";
      archive.on("error", (e: Error) => {
        err = `Docker's image export: ${e.message}\n`;
      });
      await importArchiveStream(l, tc, image, archive, () => err);
    }
    return { id: image, outs: {} };
  },

  async read(id) {
    const tc = readClusterToolchain();
    if (!tc) return undefined;
    for (const l of nodeRuntimes(clusterLayout())) if (!(await hasImage(l, tc, id))) return undefined;
    return {};
  },

  async delete() {},
};
