import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { didYouMean } from "./did-you-mean.js";
import type { PathSeg } from "./locate.js";
import type { ConfigView } from "./model.js";
import type { DiagnosticSink } from "./sink.js";
import type { ConfigFs } from "./types.js";

const RELATIVE_HINT = "paths are relative to the directory that holds platform.yml";

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** "./apii" with a sibling "api" -> "./api", keeping the way the user wrote the path. */
function suggestSibling(fs: ConfigFs, abs: string, written: string, want: "dir" | "file"): string | undefined {
  const names = fs.readdir?.(dirname(abs));
  // Guessing means a stat per entry: not worth it in a huge directory.
  if (!names || names.length > 200) return undefined;
  const fitting = names.filter((n) => {
    const st = fs.stat(join(dirname(abs), n));
    return want === "dir" ? st?.isDirectory : st?.isFile;
  });
  const guess = didYouMean(written.split(/[\\/]/).filter(Boolean).pop() ?? written, fitting);
  if (!guess) return undefined;
  const cut = written.replace(/[\\/]+$/, "");
  const slash = cut.lastIndexOf("/");
  return slash >= 0 ? `${cut.slice(0, slash + 1)}${guess}` : guess;
}

/**
 * Source directories must exist and stay inside the project: a deploy sends only the project
 * directory, so anything reached through '..' or a symbolic link out of it would be missing.
 */
export function validatePaths(view: ConfigView, sink: DiagnosticSink, projectDir: string, fs: ConfigFs): void {
  const root = resolve(projectDir);
  const realRoot = fs.realpath(root) ?? root;
  const checkDir = (path: PathSeg[], written: string): string | undefined => {
    if (isAbsolute(written)) {
      sink.error({
        path,
        code: "absolute-path",
        message: `"${written}" is an absolute path`,
        hint: `write it relative to the project directory, e.g. ./${written.split(/[\\/]/).filter(Boolean).pop() ?? "app"}`,
      });
      return undefined;
    }
    const abs = resolve(root, written);
    if (!inside(root, abs)) {
      sink.error({
        path,
        code: "path-outside-project",
        message: `"${written}" is outside the project directory`,
        hint: "move the code into the directory that holds platform.yml; a deploy only sends that directory",
      });
      return undefined;
    }
    const st = fs.stat(abs);
    if (!st) {
      const guess = suggestSibling(fs, abs, written, "dir");
      sink.error({
        path,
        code: "path-not-found",
        message: `directory "${written}" does not exist${guess ? ` (did you mean "${guess}"?)` : ""}`,
        hint: RELATIVE_HINT,
      });
      return undefined;
    }
    if (!st.isDirectory) {
      sink.error({
        path,
        code: "not-a-directory",
        message: `"${written}" is a file, not a directory`,
        hint: "give the application's directory, e.g. ./api",
      });
      return undefined;
    }
    const real = fs.realpath(abs);
    if (real !== undefined && !inside(realRoot, real)) {
      sink.error({
        path,
        code: "path-outside-project",
        message: `"${written}" leads outside the project directory through a symbolic link`,
        hint: "move or copy the code into the project; a deploy only sends the project directory",
      });
      return undefined;
    }
    return abs;
  };
  for (const svc of view.services) {
    if (sink.full) return;
    if (svc.type === "postgres" || svc.type === "redis") continue; // reported as not allowed already
    if (svc.source !== undefined && svc.source !== "") checkDir(["services", svc.name, "source"], svc.source);
    const buildSource = svc.build?.source;
    if (buildSource === undefined || buildSource === "") continue;
    const dir = checkDir(["services", svc.name, "build", "source"], buildSource);
    if (dir === undefined) continue;
    const dockerfile = svc.build?.dockerfile ?? "Dockerfile";
    const written = Object.hasOwn(svc.raw.build as object, "dockerfile");
    const path: PathSeg[] = ["services", svc.name, "build", written ? "dockerfile" : "source"];
    const abs = resolve(dir, dockerfile);
    if (isAbsolute(dockerfile) || !inside(dir, abs)) {
      sink.error({
        path,
        code: "dockerfile-outside",
        message: `dockerfile "${dockerfile}" is not inside ${buildSource}`,
        hint: "give the file name inside build.source, e.g. Dockerfile",
      });
      continue;
    }
    const st = fs.stat(abs);
    if (!st?.isFile) {
      const guess = st ? undefined : suggestSibling(fs, abs, dockerfile, "file");
      sink.error({
        path,
        code: "dockerfile-not-found",
        message: st
          ? `"${dockerfile}" in ${buildSource} is not a file`
          : `no file "${dockerfile}" in ${buildSource}${guess ? ` (did you mean "${guess}"?)` : ""}`,
        hint: written
          ? "create it, or set build.dockerfile to the file you use"
          : 'create a Dockerfile there, or set build.dockerfile to the file you use (the default is "Dockerfile")',
      });
      continue;
    }
    const real = fs.realpath(abs);
    if (real !== undefined && !inside(realRoot, real)) {
      sink.error({
        path,
        code: "path-outside-project",
        message: `dockerfile "${dockerfile}" leads outside the project directory through a symbolic link`,
        hint: "put the file itself in the project",
      });
    }
  }
}
