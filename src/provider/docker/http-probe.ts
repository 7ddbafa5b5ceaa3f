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

// One line: a status code, or "ERR <why>". Strings are inlined as JSON strings, which are
// valid string literals in Python and JavaScript alike (argv handling differs between -c/-e).
// Python's probe is one request on a plain socket, without `site` (-S) or urllib: it runs in
// the container's own CPU share while the app starts, and importing urllib took about half of
// its 0.2 s there (bench/README.md, "Where an env change's time goes"). Redirects are never followed.
const PYTHON = (url: string) => {
  const u = new URL(url);
  const request = `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUser-Agent: platform-health\r\nConnection: close\r\n\r\n`;
  return [
    "import socket",
    "try:",
    ` c = socket.create_connection((${JSON.stringify(u.hostname)}, ${Number(u.port || 80)}), ${TIMEOUT_S})`,
    ` c.sendall(${JSON.stringify(request)}.encode())`,
    " l = c.makefile('rb').readline().split()",
    " print(int(l[1]) if len(l) > 1 and l[0].startswith(b'HTTP/') and l[1].isdigit() else 'ERR not an HTTP answer')",
    "except Exception as x: print('ERR', x)",
  ].join("\n");
};

const JS = (url: string) =>
  `const r=require("http").get(${JSON.stringify(url)},{timeout:${TIMEOUT_S * 1000},agent:false},(s)=>{console.log(s.statusCode);process.exit(0)});` +
  `r.on("timeout",()=>{console.log("ERR timed out after ${TIMEOUT_S}s");process.exit(0)});r.on("error",(x)=>{console.log("ERR "+x.message);process.exit(0)});`;

function parseLine(output: string): { status: number } | { error: string } {
  const line = output.trim().split("\n").pop() ?? "";
  if (/^\d{3}$/.test(line)) return { status: Number(line) };
  return { error: line.replace(/^ERR /, "") || output.trim() || "no answer" };
}

export const PROBE_CLIENTS: readonly ProbeClient[] = [
  { bin: "python3", command: (url) => ["python3", "-S", "-c", PYTHON(url)], parse: parseLine },
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
