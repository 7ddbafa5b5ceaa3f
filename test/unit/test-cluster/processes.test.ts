import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ComponentSpec } from "../../../src/test-cluster/component-spec.js";
import { clusterLayout, readClusterToolchain, toolchainFile } from "../../../src/test-cluster/layout.js";
import { argsChanged, logFile, runningPid, startComponent, stopComponent } from "../../../src/test-cluster/processes.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the test cluster's processes", () => {
  it("a component gets its env over the system tools' one, and its flags are kept beside its pid to tell a change", async () => {
    const l = clusterLayout(mkdtempSync(join(tmpdir(), "processes-")));
    const spec: ComponentSpec = {
      name: "fake",
      command: process.execPath,
      args: ["-e", "console.log('got', process.env.KUBECONFIG, process.env.PATH); setTimeout(() => {}, 30000)", "first"],
      env: { KUBECONFIG: "/k/traefik.yaml" },
      health: { kind: "http", url: "http://127.0.0.1:1/" },
      stopGraceMs: 2000,
    };
    expect(argsChanged(l, spec), "no record: not changed").toBe(false);
    startComponent(l, spec);
    try {
      expect(runningPid(l, spec)).toBeDefined();
      expect(argsChanged(l, spec)).toBe(false);
      expect(argsChanged(l, { ...spec, args: [...spec.args.slice(0, 2), "second"] })).toBe(true);
      let log = "";
      for (let i = 0; i < 50 && !log.includes("got "); i++, await sleep(50)) log = readFileSync(logFile(l, spec.name), "utf8");
      expect(log).toContain("got /k/traefik.yaml ");
      expect(log).toMatch(/got \S+ \S*\/usr\/sbin/);
    } finally {
      expect(await stopComponent(l, spec)).toBe(true);
    }
    expect(existsSync(join(l.pids, "fake.args"))).toBe(false);
    expect(argsChanged(l, spec)).toBe(false);
  });

  it("a kubernetes.json without Traefik or cert-manager (written before they were part of the cluster) asks for the set-up again", () => {
    const home = mkdtempSync(join(tmpdir(), "toolchain-"));
    const file = (name: string) => {
      const p = join(home, "files", name);
      writeFileSync(p, "");
      return p;
    };
    mkdirSync(join(home, "files", "bin"), { recursive: true });
    mkdirSync(join(home, "files", "cni"), { recursive: true });
    for (const b of ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "kubectl"])
      file(join("bin", b));
    const tc = {
      kubernetesVersion: "1.34.2",
      binDir: join(home, "files", "bin"),
      pauseImage: { ref: "p", archive: file("pause.tar") },
      corednsImage: { ref: "c", archive: file("coredns.tar") },
      registry: file("registry"),
      pulumiKubernetesVersion: "4.25.0",
      containerd: file("containerd"),
      ctr: file("ctr"),
      runc: file("runc"),
      etcd: file("etcd"),
      cniBinDir: join(home, "files", "cni"),
      metricsServer: file("metrics-server"),
    };
    file(join("cni", "bridge"));
    writeFileSync(toolchainFile(home), JSON.stringify(tc));
    expect(readClusterToolchain(home)).toBeUndefined();
    writeFileSync(toolchainFile(home), JSON.stringify({ ...tc, traefik: file("traefik") }));
    expect(readClusterToolchain(home)).toBeUndefined();
    mkdirSync(join(home, "files", "crds"));
    const certManager = {
      version: "1.21.2",
      controller: file("cert-manager-controller"),
      crdDir: join(home, "files", "crds"),
      solverImage: { ref: "s", archive: file("acmesolver.tar") },
    };
    writeFileSync(toolchainFile(home), JSON.stringify({ ...tc, traefik: file("traefik"), certManager }));
    expect(readClusterToolchain(home)?.traefik).toBe(join(home, "files", "traefik"));
    expect(readClusterToolchain(home)?.certManager.controller).toBe(join(home, "files", "cert-manager-controller"));
  });
});
