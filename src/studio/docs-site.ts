import { fileURLToPath } from "node:url";
import { loadUi, type UiFile } from "./static.js";

/**
 * The documentation site (docs/, built by `npm run docs` or the set-up into dist-docs/), served
 * by Studio at DOCS_BASE: Studio's empty states and errors link to the page that explains them,
 * and the links work offline, on the server, wherever Studio runs.
 */
export const DOCS_BASE = "/docs/";

/** The built site, beside dist/ in the install. */
export const DOCS_DIR = fileURLToPath(new URL("../../dist-docs/", import.meta.url));

/** Every file of the built site, read once at start (as the UI's are: no URL path reaches the file system). */
export function loadDocs(dir = DOCS_DIR): Map<string, UiFile> {
  return loadUi(dir);
}

/** The site's file for a request path under DOCS_BASE: the page itself, its `.html`, or a directory's index. */
export function docsFile(docs: ReadonlyMap<string, UiFile>, path: string): UiFile | undefined {
  const rel = `/${path.slice(DOCS_BASE.length)}`;
  return docs.get(rel) ?? docs.get(`${rel}.html`) ?? docs.get(`${rel.replace(/\/?$/, "/")}index.html`);
}
