/**
 * HTTP health probes run INSIDE a service container (docker exec), so nothing has to be
 * published on the host: each HTTP client an image may have, the command that makes one GET
 * (2 s timeout, redirects not followed where the client allows it) and how to read its answer.
 * Pure: the exec itself lives in health.ts.
 */
export interface ProbeClient {
  readonly bin: string;
  command(url: string): string[];
  /** The HTTP status, or why there was none. */
  parse(output: string, exitCode: number): { status: number } | { error: string };
}

const TIMEOUT_S = 2;

// One line: a status code, or "ERR <why>". The URL is inlined as a JSON string, which is a
// valid string literal in Python and JavaScript alike (argv handling differs between -c/-e).
const PYTHON = (url: string) =>
  [
    "import urllib.request as u, urllib.error as e",
    "class R(u.HTTPRedirectHandler):",
    "    def redirect_request(self, *a): return None",
    `try: print(u.build_opener(R).open(${JSON.stringify(url)}, timeout=${TIMEOUT_S}).status)`,
    "except e.HTTPError as x: print(x.code)",
    "except Exception as x: print('ERR', getattr(x, 'reason', None) or x)",
  ].join("\n");

const JS = (url: string) =>
  `const r=require("http").get(${JSON.stringify(url)},{timeout:${TIMEOUT_S * 1000},agent:false},(s)=>{console.log(s.statusCode);process.exit(0)});` +
  `r.on("timeout",()=>{console.log("ERR timed out after ${TIMEOUT_S}s");process.exit(0)});r.on("error",(x)=>{console.log("ERR "+x.message);process.exit(0)});`;

function parseLine(output: string): { status: number } | { error: string } {
  const line = output.trim().split("\n").pop() ?? "";
  if (/^\d{3}$/.test(line)) return { status: Number(line) };
  return { error: line.replace(/^ERR /, "") || output.trim() || "no answer" };
}

export const PROBE_CLIENTS: readonly ProbeClient[] = [
  { bin: "python3", command: (url) => ["python3", "-c", PYTHON(url)], parse: parseLine },
  { bin: "node", command: (url) => ["node", "-e", JS(url)], parse: parseLine },
  { bin: "bun", command: (url) => ["bun", "-e", JS(url)], parse: parseLine },
  {
    bin: "curl",
    command: (url) => ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", String(TIMEOUT_S), url],
    parse: (output, exitCode) => {
      const m = /(\d{3})\s*$/.exec(output);
      if (exitCode === 0 && m) return { status: Number(m[1]) };
      return {
        error:
          output
            .replace(/0{3}\s*$/, "")
            .replace(/^curl: \(\d+\) /, "")
            .trim() || `curl exited ${exitCode}`,
      };
    },
  },
  {
    // Busybox's wget has no --max-redirect: the first status line printed is the first answer's.
    bin: "wget",
    command: (url) => ["wget", "-q", "-S", "-O", "/dev/null", "-T", String(TIMEOUT_S), url],
    parse: (output, exitCode) => {
      const m = /HTTP\/[\d.]+ (\d{3})/.exec(output);
      return m ? { status: Number(m[1]) } : { error: output.trim().split("\n").pop() || `wget exited ${exitCode}` };
    },
  },
];

/** An exec of a binary the image does not have: the engine answers at once with 126/127. */
export function isMissingBinary(exitCode: number, output: string): boolean {
  return (exitCode === 126 || exitCode === 127) && /not found|no such file/i.test(output);
}

/** undefined when healthy; otherwise the failure, as the deploy error will show it. */
export function judgeAnswer(answer: { status: number } | { error: string }, path: string, anyStatus: boolean): string | undefined {
  if ("error" in answer) return `GET ${path} failed: ${answer.error}`;
  return anyStatus || (answer.status >= 200 && answer.status < 400) ? undefined : `GET ${path} answered ${answer.status}`;
}

/** A refused connection to the network address may mean the app listens on loopback only. */
export function isRefused(failure: string): boolean {
  return /refused/i.test(failure);
}

export const NO_CLIENT = `the image has none of ${PROBE_CLIENTS.map((c) => c.bin).join(", ")} to run its HTTP health check inside the container`;

export const LOOPBACK_HINT = "listen on 0.0.0.0:$PORT";
