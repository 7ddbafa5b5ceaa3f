import { stringify } from "yaml";
import { NETWORK } from "./layout.js";

/**
 * CoreDNS as the cluster's DNS: a Deployment of the image the set-up built from the CoreDNS
 * module (imported, never pulled), behind the kube-dns Service at the address the kubelet
 * gives every pod. RBAC as in the upstream deployment manifests.
 */
export function buildCorednsManifests(image: string): string {
  const ns = "kube-system";
  const labels = { "k8s-app": "kube-dns" };
  const corefile = [
    ".:53 {",
    "    errors",
    "    health {",
    "        lameduck 5s",
    "    }",
    "    ready",
    `    kubernetes ${NETWORK.clusterDomain} in-addr.arpa ip6.arpa {`,
    "        pods insecure",
    "        fallthrough in-addr.arpa ip6.arpa",
    "        ttl 30",
    "    }",
    // Names outside the cluster go to the host's resolvers (pods of this Deployment get the
    // host's resolv.conf: dnsPolicy Default).
    "    forward . /etc/resolv.conf",
    "    cache 30",
    "    loop",
    "    reload",
    "    loadbalance",
    "}",
    "",
  ].join("\n");
  const docs: object[] = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "coredns", namespace: ns } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "system:coredns" },
      rules: [
        { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
        { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "system:coredns" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:coredns" },
      subjects: [{ kind: "ServiceAccount", name: "coredns", namespace: ns }],
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "coredns", namespace: ns }, data: { Corefile: corefile } },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "coredns", namespace: ns, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: "coredns",
            dnsPolicy: "Default",
            priorityClassName: "system-cluster-critical",
            tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
            containers: [
              {
                name: "coredns",
                image,
                imagePullPolicy: "Never",
                args: ["-conf", "/etc/coredns/Corefile"],
                ports: [
                  { name: "dns", containerPort: 53, protocol: "UDP" },
                  { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
                  { name: "metrics", containerPort: 9153, protocol: "TCP" },
                ],
                resources: { requests: { cpu: "50m", memory: "32Mi" }, limits: { memory: "170Mi" } },
                volumeMounts: [{ name: "config", mountPath: "/etc/coredns", readOnly: true }],
                readinessProbe: { httpGet: { path: "/ready", port: 8181 }, periodSeconds: 2 },
                livenessProbe: {
                  httpGet: { path: "/health", port: 8080 },
                  initialDelaySeconds: 30,
                  timeoutSeconds: 5,
                  failureThreshold: 5,
                },
              },
            ],
            volumes: [{ name: "config", configMap: { name: "coredns" } }],
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "kube-dns", namespace: ns, labels },
      spec: {
        selector: labels,
        clusterIP: NETWORK.dnsServiceIp,
        ports: [
          { name: "dns", port: 53, protocol: "UDP" },
          { name: "dns-tcp", port: 53, protocol: "TCP" },
          { name: "metrics", port: 9153, protocol: "TCP" },
        ],
      },
    },
  ];
  return docs.map((d) => stringify(d)).join("---\n");
}
