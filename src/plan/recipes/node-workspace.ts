/** A Node service inside a pnpm workspace: it installs from the workspace root (nextjs and worker recipes). */
import { detectWorkspaceManager, type NodePackage } from "./detect-node-project.js";
import type { SourceSnapshot } from "./types.js";

export interface NodeWorkspace<P extends NodePackage> {
  /** The service's own package, with the workspace's package manager and lockfile. */
  readonly project: P;
  readonly root: SourceSnapshot;
  /** The service directory relative to the workspace root. */
  readonly member: string;
  /** The workspace root relative to the service directory. */
  readonly rootDir: string;
}

/**
 * A member of a pnpm workspace without a lockfile of its own: the workspace's package
 * manager and lockfile, every workspace package.json for the install, the build context at
 * the root. Undefined for a standalone project.
 */
export function detectNodeWorkspace<P extends NodePackage>(src: SourceSnapshot, own: P): NodeWorkspace<P> | undefined {
  const ws = src.workspace;
  if (ws?.kind !== "pnpm" || own.lockfile) return undefined;
  const root = detectWorkspaceManager(ws.snapshot);
  const note = `pnpm workspace at ${ws.root}: installing with pnpm from the workspace's pnpm-lock.yaml (the build context is the workspace root, the app is ${ws.member})`;
  return {
    project: {
      ...own,
      manager: root.manager,
      lockfile: root.lockfile,
      managerSpec: root.managerSpec,
      managerVersion: root.managerVersion,
      managerNote: root.managerNote,
      nodeRequest: own.nodeRequest ?? root.nodeRequest,
      notes: [note, ...own.notes.slice(1)],
    },
    root: ws.snapshot,
    member: ws.member,
    rootDir: ws.root,
  };
}
