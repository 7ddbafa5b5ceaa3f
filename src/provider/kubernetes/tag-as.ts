import { docker } from "../../docker-client.js";

/**
 * A prebuilt image (platform.yml `image:`) reaches the cluster by its id: the engine's image is
 * first tagged with a name made from that id (`tagAs`), and the cluster gets that name, so what
 * pods run never follows a tag that moved since (a rollback runs exactly the recorded image).
 * Without `tagAs`, the image reference as given.
 */
export async function imageToPlace(inputs: Record<string, unknown>): Promise<string> {
  const image = String(inputs.image);
  const tagAs = typeof inputs.tagAs === "string" ? inputs.tagAs : undefined;
  if (!tagAs) return image;
  const colon = tagAs.lastIndexOf(":");
  await docker()
    .getImage(image)
    .tag({ repo: tagAs.slice(0, colon), tag: tagAs.slice(colon + 1) });
  return tagAs;
}
