import { join } from "node:path";
import { platformHome } from "../settings.js";

/** One Pulumi project per application: its directory under the platform home. Kept apart from workspace.ts, which loads the Automation API. */
export function workspaceDir(project: string): string {
  return join(platformHome(), "projects", project);
}
