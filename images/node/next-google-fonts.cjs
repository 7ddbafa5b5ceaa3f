// next/font/google without the internet (see src/plan/recipes/next-fonts.ts). The generated
// Next.js Dockerfile runs its build command through this file:
//   node next-google-fonts.cjs <directory to scan> <build command...>
//
// It finds the app's next/font/google calls and asks the app's own Next.js for the Google
// Fonts URLs they request. When Google Fonts answers, or no call is found, the command runs as
// it is. Otherwise the CSS those URLs would return is made from the npm font packages
// (@fontsource/<family>, @fontsource-variable/<family>) and handed to Next.js through its own
// hook, NEXT_FONT_GOOGLE_MOCKED_RESPONSES (a module exporting CSS per URL). webpack builds read
// a font file whose URL is an absolute path from disk; Turbopack builds fetch every font URL,
// so they get a loopback HTTP server that lives as long as the command. Either way Next.js
// copies the files into .next/static/media as it does with Google's, and the page serves them.
//
// Node 18 or later, no dependencies: it runs on whatever Node the app builds with.
"use strict";
const fs = require("node:fs");
const http = require("node:http");
const https = require("node:https");
const os = require("node:os");
const path = require("node:path");
const { createRequire } = require("node:module");
const { execFile, spawn } = require("node:child_process");

const PREFIX = "platform: next/font/google:";
// Google answers with WOFF2 for a browser of this kind (Next.js sends the same).
const USER_AGENT = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/104.0.0.0 Safari/537.36";
const PROBE_MS = 5000;
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?)$/;
const SKIP_DIRS = new Set(["node_modules", ".next", ".git", ".turbo", ".vercel", "out", "coverage"]);
const MAX_FILES = 50000;
const MAX_BYTES = 1024 * 1024;
// The package majors whose layout this file reads (files/<id>-<subset>-<weight>-<style>.woff2, metadata.json, unicode.json).
const FONTSOURCE_RANGE = "5";

// ---- Finding the calls ----

const ESCAPES = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", v: "\v", 0: "\0" };

// A JavaScript literal (object, array, string, number, boolean, null) at text[start]: Next.js
// accepts only literals in font loader calls. Undefined when it is anything else.
function readLiteral(text, start) {
  let i = start;
  const fail = () => {
    throw new SyntaxError(`not a literal at ${i}`);
  };
  const space = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i])) i++;
      if (text.startsWith("//", i)) {
        const end = text.indexOf("\n", i);
        i = end < 0 ? text.length : end + 1;
      } else if (text.startsWith("/*", i)) {
        const end = text.indexOf("*/", i + 2);
        if (end < 0) fail();
        i = end + 2;
      } else return;
    }
  };
  const string = () => {
    const quote = text[i++];
    let out = "";
    while (i < text.length && text[i] !== quote) {
      let ch = text[i++];
      if (ch === "\\") {
        const e = text[i++];
        if (e === "u") {
          const m = /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4}))/.exec(text.slice(i, i + 10)) || fail();
          i += m[0].length;
          ch = String.fromCodePoint(Number.parseInt(m[1] || m[2], 16));
        } else if (e === "x") {
          ch = String.fromCharCode(Number.parseInt(text.slice(i, i + 2), 16));
          i += 2;
        } else if (e === "\n") ch = "";
        else ch = ESCAPES[e] ?? e;
      } else if (quote === "`" && ch === "$" && text[i] === "{") fail();
      out += ch;
    }
    if (text[i] !== quote) fail();
    i++;
    return out;
  };
  const list = () => {
    i++;
    const out = [];
    for (;;) {
      space();
      if (text[i] === "]") break;
      out.push(value());
      if (text[i] === ",") i++;
      else if (text[i] !== "]") fail();
    }
    i++;
    return out;
  };
  const object = () => {
    i++;
    const out = {};
    for (;;) {
      space();
      if (text[i] === "}") break;
      let key;
      if (text[i] === '"' || text[i] === "'") key = string();
      else {
        const m = /^(?:[A-Za-z_$][\w$]*|\d+)/.exec(text.slice(i, i + 200)) || fail();
        key = m[0];
        i += key.length;
      }
      space();
      if (text[i] !== ":") fail();
      i++;
      out[key] = value();
      if (text[i] === ",") i++;
      else if (text[i] !== "}") fail();
    }
    i++;
    return out;
  };
  const value = () => {
    space();
    const ch = text[i];
    let v;
    if (ch === "{") v = object();
    else if (ch === "[") v = list();
    else if (ch === '"' || ch === "'" || ch === "`") v = string();
    else {
      const m = /^(?:-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|true|false|null|undefined)(?![\w$])/.exec(text.slice(i, i + 40)) || fail();
      i += m[0].length;
      const w = m[0];
      v = w === "true" ? true : w === "false" ? false : w === "null" ? null : w === "undefined" ? undefined : Number(w);
    }
    space();
    // TypeScript's `as const` after a literal changes nothing.
    const as = /^as\s+const(?![\w$])/.exec(text.slice(i, i + 20));
    if (as) {
      i += as[0].length;
      space();
    }
    return v;
  };
  try {
    return { value: value(), end: i };
  } catch {
    return undefined;
  }
}

const IMPORT = /\bimport\s*\{([^}]*)\}\s*from\s*["'](?:@next\/font\/google|next\/font\/google)["']/g;

// The next/font/google calls of one module: [{ functionName: "Roboto_Mono", options }].
function findFontCalls(text) {
  const calls = [];
  for (const m of text.matchAll(IMPORT)) {
    const names = m[1].replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "").split(",");
    for (const spec of names) {
      const s = spec.trim();
      if (!s || /^type\s/.test(s)) continue;
      const [imported, local = imported] = s.split(/\s+as\s+/).map((x) => x.trim());
      const call = new RegExp(`(?<![\\w$.])${local.replace(/\$/g, "\\$")}\\s*\\(`, "g");
      call.lastIndex = m.index + m[0].length;
      for (let c = call.exec(text); c; c = call.exec(text)) {
        const after = c.index + c[0].length;
        if (/^\s*\)/.test(text.slice(after, after + 200))) {
          calls.push({ functionName: imported, options: undefined });
          continue;
        }
        const arg = readLiteral(text, after);
        if (arg && /^[,)]/.test(text.slice(arg.end, arg.end + 1))) calls.push({ functionName: imported, options: arg.value });
      }
    }
  }
  return calls;
}

// Every next/font/google call under root (node_modules, build output and dot-directories skipped).
function scanFontCalls(root) {
  const calls = [];
  let seen = 0;
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (seen >= MAX_FILES) return;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) walk(full);
      } else if (e.isFile() && SOURCE_FILE.test(e.name)) {
        seen++;
        try {
          if (fs.statSync(full).size > MAX_BYTES) continue;
          const text = fs.readFileSync(full, "utf8");
          if (text.includes("next/font/google")) for (const c of findFontCalls(text)) calls.push({ ...c, file: full });
        } catch {
          // unreadable: the build will say more if it matters
        }
      }
    }
  };
  walk(root);
  return calls;
}

// ---- The URLs, computed by the app's own Next.js ----

// (functionName, options) => the URL next/font/google fetches, with the app's Next.js code
// (13.3 and later: one module per step; 13.0-13.2: utils.js). Undefined without Next.js.
function loadUrlMaker(cwd) {
  const req = createRequire(path.join(cwd, "package.json"));
  const dirs = [];
  try {
    dirs.push(path.join(path.dirname(req.resolve("next/package.json")), "dist/compiled/@next/font/dist/google"));
  } catch {}
  try {
    dirs.push(path.join(path.dirname(req.resolve("@next/font/package.json")), "dist/google"));
  } catch {}
  for (const dir of dirs) {
    const at = (name) => path.join(dir, name);
    if (fs.existsSync(at("get-google-fonts-url.js"))) {
      const { validateGoogleFontFunctionCall } = require(at("validate-google-font-function-call.js"));
      const { getFontAxes } = require(at("get-font-axes.js"));
      const { getGoogleFontsUrl } = require(at("get-google-fonts-url.js"));
      return (name, options) => {
        const v = validateGoogleFontFunctionCall(name, options);
        return getGoogleFontsUrl(v.fontFamily, getFontAxes(v.fontFamily, v.weights, v.styles, v.selectedVariableAxes), v.display);
      };
    }
    if (fs.existsSync(at("utils.js"))) {
      const u = require(at("utils.js"));
      return (name, options) => {
        const v = u.validateData(name, [options]);
        return u.getUrl(v.fontFamily, u.getFontAxes(v.fontFamily, v.weights, v.styles, v.selectedVariableAxes), v.display);
      };
    }
  }
  return undefined;
}

// ---- Is Google Fonts there? ----

// The proxy Next.js itself would use (https_proxy), through its own agent.
function proxyAgent(cwd) {
  const proxy = process.env.https_proxy || process.env.HTTPS_PROXY;
  if (!proxy) return undefined;
  try {
    const Agent = createRequire(path.join(cwd, "package.json"))("next/dist/compiled/https-proxy-agent");
    return new (Agent.default || Agent)(proxy);
  } catch {
    return undefined;
  }
}

// undefined when the URL answers 200, else why not (an error code or status, never the host).
function probe(url, cwd) {
  return new Promise((resolve) => {
    const req = https.get(url, { headers: { "User-Agent": USER_AGENT }, agent: proxyAgent(cwd), timeout: PROBE_MS }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? undefined : `HTTP ${res.statusCode}`);
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: `no answer in ${PROBE_MS / 1000} s` })));
    req.on("error", (e) => resolve(e.code || e.name));
  });
}

// ---- The CSS, from npm packages ----

// What a css2 URL asks for: family, font-display, and one tuple per face (axis -> [min, max]).
function parseCss2Url(url) {
  const u = new URL(url);
  const param = u.searchParams.get("family") || "";
  const colon = param.indexOf(":");
  const family = colon < 0 ? param : param.slice(0, colon);
  const display = u.searchParams.get("display") || undefined;
  if (colon < 0) return { family, display, tuples: [{}] };
  const [tagText, valueText = ""] = param.slice(colon + 1).split("@");
  const tags = tagText.split(",");
  const tuples = valueText.split(";").map((t) => {
    const out = {};
    t.split(",").forEach((v, k) => {
      const [lo, hi = lo] = v.split("..").map(Number);
      out[tags[k]] = [lo, hi];
    });
    return out;
  });
  return { family, display, tuples };
}

// The npm packages that may carry a Google family (fontsource's id: lower case, dashes).
function toPackageNames(family) {
  const id = family
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return { id, static: `@fontsource/${id}`, variable: `@fontsource-variable/${id}` };
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

// An unpacked package: its metadata, subsets (name -> unicode-range) and files.
function readPackage(dir) {
  const meta = readJson(path.join(dir, "metadata.json"));
  if (!meta) return undefined;
  const unicode = readJson(path.join(dir, "unicode.json")) || {};
  const subsets = Object.keys(unicode).length > 0 ? Object.keys(unicode) : meta.subsets || [];
  let files = [];
  try {
    files = fs.readdirSync(path.join(dir, "files"));
  } catch {}
  return { dir, meta, unicode, subsets, files: new Set(files) };
}

// "[3]" (fontsource's numbered slices of CJK fonts, as Google names them) is "3" in file names.
const fileSubset = (subset) => subset.replace(/^\[(\d+)\]$/, "$1");

// The variable file for the requested axes: wght alone, one more axis (fontsource's per-axis
// file, which also holds wght), the registered axes ("standard"), or all of them ("full").
function chooseVariableFile(pkg, id, subset, style, axes) {
  const extra = axes.filter((a) => a !== "wght" && a !== "ital");
  const kinds = extra.length === 0 ? ["wght"] : extra.length === 1 ? [extra[0], "standard", "full"] : ["standard", "full"];
  if (extra.some((a) => a !== a.toLowerCase())) kinds.splice(0, kinds.length, "full");
  for (const kind of kinds) {
    const name = `${id}-${fileSubset(subset)}-${kind}-${style}.woff2`;
    if (pkg.files.has(name)) return name;
  }
  return undefined;
}

function face({ family, style, weight, stretch, display, src, subset, range }) {
  return [
    `/* ${subset} */`,
    "@font-face {",
    `  font-family: '${family}';`,
    `  font-style: ${style};`,
    `  font-weight: ${weight};`,
    ...(stretch ? [`  font-stretch: ${stretch};`] : []),
    ...(display ? [`  font-display: ${display};`] : []),
    `  src: url(${src}) format('woff2');`,
    ...(range ? [`  unicode-range: ${range.split(/\s*,\s*/).join(", ")};`] : []),
    "}",
  ].join("\n");
}

// The CSS Google would answer for a css2 URL, made from the unpacked packages
// ({ static, variable }, each undefined when absent); or what is missing.
function buildCss(url, pkgs) {
  const { family, display, tuples } = parseCss2Url(url);
  const { id } = toPackageNames(family);
  const faces = [];
  const missing = [];
  const axesOf = (t) => Object.keys(t);
  for (const t of tuples) {
    const style = t.ital && t.ital[0] === 1 ? "italic" : "normal";
    const [lo, hi] = t.wght || [400, 400];
    const ranged = lo !== hi || axesOf(t).some((a) => a !== "wght" && a !== "ital");
    const stretch = t.wdth && t.wdth[0] !== t.wdth[1] ? `${t.wdth[0]}% ${t.wdth[1]}%` : undefined;
    // Faces for one tuple: [weight text, package, file] per subset.
    const pick = (subset) => {
      const v = pkgs.variable;
      const vw = v?.meta.variable?.wght;
      const variableCovers = v && (!vw || (Number(vw.min) <= lo && hi <= Number(vw.max)));
      if (!ranged && pkgs.static) {
        const name = `${id}-${fileSubset(subset)}-${lo}-${style}.woff2`;
        if (pkgs.static.files.has(name)) return [[String(lo), pkgs.static, name]];
      }
      if (variableCovers) {
        const name = chooseVariableFile(v, id, subset, style, axesOf(t));
        if (name) return [[ranged ? `${lo} ${hi}` : String(lo), v, name]];
      }
      // A range that only static files carry: each of their weights in it.
      if (ranged && pkgs.static) {
        const weights = (pkgs.static.meta.weights || []).filter((w) => lo <= w && w <= hi);
        const out = weights
          .map((w) => [String(w), pkgs.static, `${id}-${fileSubset(subset)}-${w}-${style}.woff2`])
          .filter(([, p, n]) => p.files.has(n));
        if (out.length > 0) return out;
      }
      return [];
    };
    const subsets = [...new Set([...(pkgs.variable?.subsets || []), ...(pkgs.static?.subsets || [])])];
    let found = 0;
    for (const subset of subsets) {
      for (const [weight, pkg, name] of pick(subset)) {
        found++;
        const range = pkg.unicode[subset];
        faces.push(face({ family, style, weight, stretch, display, src: path.join(pkg.dir, "files", name), subset, range }));
      }
    }
    if (found === 0) missing.push(`${lo === hi ? lo : `${lo}..${hi}`} ${style}`);
  }
  if (missing.length > 0) return { missing: pkgs.static || pkgs.variable ? `"${family}" ${missing.join(", ")}` : `"${family}"` };
  return { css: `${faces.join("\n")}\n` };
}

// ---- Getting the packages ----

function run(cmd, args, opts) {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024, ...opts }, (error, stdout, stderr) =>
      resolve({ error, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

// npm pack + tar: { dir, version }, { absent: true } when the registry has no such package
// (at the major this file reads), or { error }.
async function fetchPackage(name, into, cwd) {
  const dest = path.join(into, name.replace(/[@/]/g, "_"));
  fs.mkdirSync(dest, { recursive: true });
  const packed = await run("npm", ["pack", `${name}@${FONTSOURCE_RANGE}`, "--json", "--pack-destination", dest], { cwd });
  if (packed.error) {
    if (/E404|ETARGET|404 Not Found|No matching version/.test(packed.stderr + packed.stdout)) return { absent: true };
    const last = (packed.stderr.trim().split("\n").pop() || packed.error.message).trim();
    return { error: last };
  }
  let info;
  try {
    info = JSON.parse(packed.stdout)[0];
  } catch {
    return { error: "npm pack printed no JSON" };
  }
  const tgz = path.join(dest, info.filename.replace(/^@/, "").replace(/\//g, "-"));
  const unpacked = await run("tar", ["-xzf", fs.existsSync(tgz) ? tgz : path.join(dest, info.filename), "-C", dest]);
  if (unpacked.error) return { error: unpacked.stderr.trim() || unpacked.error.message };
  return { dir: path.join(dest, "package"), version: info.version };
}

// ---- Running the build ----

function writeMock(dir, cssByUrl, port) {
  const file = path.join(dir, "google-fonts-mock.cjs");
  const text = [
    "// Generated by the platform for this build: the CSS next/font/google asks Google Fonts for,",
    "// made from npm font packages because Google Fonts cannot be reached.",
    '"use strict";',
    `const css = ${JSON.stringify(cssByUrl, null, 2)};`,
    "// webpack reads a font file whose URL is an absolute path; Turbopack downloads every font URL.",
    `const base = typeof __turbopack_context__ === "undefined" ? "" : "http://127.0.0.1:${port}";`,
    "module.exports = base ? Object.fromEntries(Object.entries(css).map(([k, v]) => [k, v.split('url(/').join('url(' + base + '/')])) : css;",
    "",
  ].join("\n");
  fs.writeFileSync(file, text);
  return file;
}

// Serves the unpacked font files (paths under root only) on loopback, for Turbopack.
function serveFiles(root) {
  const server = http.createServer((req, res) => {
    const file = path.normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "font/woff2" });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function say(line) {
  process.stdout.write(`${PREFIX} ${line}\n`);
}

// Which packages a family's URLs need first: static files for fixed weights, variable ones for ranges.
function wantedKinds(urls) {
  const kinds = new Set();
  for (const url of urls) {
    for (const t of parseCss2Url(url).tuples) {
      const [lo, hi] = t.wght || [400, 400];
      kinds.add(lo !== hi || Object.keys(t).some((a) => a !== "wght" && a !== "ital") ? "variable" : "static");
    }
  }
  return kinds;
}

// One family's CSS per URL, fetching the other kind of package only when the first lacks something.
async function buildFamilyCss(family, urls, into, cwd, versions) {
  const names = toPackageNames(family);
  const pkgs = {};
  const fetched = new Set();
  const get = async (kind) => {
    fetched.add(kind);
    const r = await fetchPackage(names[kind], into, cwd);
    if (r.error) say(`could not download ${names[kind]}: ${r.error}`);
    if (r.dir) {
      versions.push(`${names[kind]}@${r.version}`);
      pkgs[kind] = readPackage(r.dir);
    }
  };
  await Promise.all([...wantedKinds(urls)].map(get));
  let results = urls.map((url) => buildCss(url, pkgs));
  const other = ["static", "variable"].find((k) => !fetched.has(k));
  if (other && results.some((r) => r.missing)) {
    await get(other);
    results = urls.map((url) => buildCss(url, pkgs));
  }
  return results;
}

// The stand-in: packages fetched, CSS made, the mock written, files served. Returns the build's extra env.
async function prepareStandIn(urls, cwd, why) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-next-fonts-"));
  const byFamily = new Map();
  for (const url of urls) {
    const family = parseCss2Url(url).family;
    byFamily.set(family, [...(byFamily.get(family) || []), url]);
  }
  const versions = [];
  const cssByUrl = {};
  const missing = [];
  await Promise.all(
    [...byFamily].map(async ([family, list]) => {
      const results = await buildFamilyCss(family, list, dir, cwd, versions);
      results.forEach((r, k) => {
        if (r.css) cssByUrl[list[k]] = r.css;
        else missing.push([family, r.missing]);
      });
    }),
  );
  // In the order of the source, whichever download finished first.
  const served = [...byFamily].filter(([, list]) => list.some((u) => cssByUrl[u])).map(([family]) => family);
  if (served.length > 0)
    say(`Google Fonts cannot be reached from this build (${why}): serving ${served.join(", ")} from npm (${versions.sort().join(", ")})`);
  for (const [family, what] of missing) {
    const names = toPackageNames(family);
    say(
      `no npm package carries ${what} (looked in ${names.static} and ${names.variable}), and Google Fonts cannot be reached from this build`,
    );
  }
  const server = await serveFiles(dir);
  const mock = writeMock(dir, cssByUrl, server.address().port);
  const noProxy = [process.env.NO_PROXY || process.env.no_proxy, "127.0.0.1", "localhost"].filter(Boolean).join(",");
  return { env: { NEXT_FONT_GOOGLE_MOCKED_RESPONSES: mock, NO_PROXY: noProxy, no_proxy: noProxy }, server, dir };
}

// deps: the probe and the directory, for the tests (Google cannot be reached from them).
async function main(argv, deps = { probe, cwd: process.cwd() }) {
  const [root, ...words] = argv;
  // Leading NAME=value words are the command's environment, as sh reads them.
  const assigned = {};
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    const word = words.shift();
    assigned[word.slice(0, word.indexOf("="))] = word.slice(word.indexOf("=") + 1);
  }
  const command = words;
  if (!root || command.length === 0) {
    process.stderr.write("usage: node next-google-fonts.cjs <directory to scan> <build command...>\n");
    return 2;
  }
  const cwd = deps.cwd;
  let standIn;
  // An app that sets Next.js's hook itself keeps it.
  if (!process.env.NEXT_FONT_GOOGLE_MOCKED_RESPONSES) {
    const calls = scanFontCalls(path.resolve(root));
    const makeUrl = calls.length > 0 ? loadUrlMaker(cwd) : undefined;
    const urls = new Set();
    for (const c of makeUrl ? calls : []) {
      try {
        urls.add(makeUrl(c.functionName, c.options));
      } catch {
        // Next.js reports an invalid call itself, with its own words.
      }
    }
    const why = urls.size > 0 ? await deps.probe([...urls][0], cwd) : undefined;
    // A fault here must not fail a build that would not have needed it: the build then runs as it is.
    if (why) standIn = await prepareStandIn([...urls], cwd, why).catch((e) => say(`not served from npm: ${e.message}`));
  }
  const child = spawn(command[0], command.slice(1), {
    stdio: "inherit",
    env: { ...process.env, ...assigned, ...(standIn ? standIn.env : {}) },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => {
    child.on("error", (e) => {
      process.stderr.write(`could not run ${command[0]}: ${e.message}\n`);
      resolve(127);
    });
    child.on("exit", (c, signal) => resolve(c ?? 128 + (os.constants.signals[signal] || 1)));
  });
  if (standIn) {
    standIn.server.close();
    fs.rmSync(standIn.dir, { recursive: true, force: true });
  }
  return code;
}

module.exports = { readLiteral, findFontCalls, scanFontCalls, loadUrlMaker, parseCss2Url, toPackageNames, readPackage, buildCss, main };

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`${PREFIX} ${e.stack || e}\n`);
      process.exit(1);
    },
  );
}
