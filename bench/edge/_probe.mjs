import { execFileSync } from "node:child_process";
const ROOT = "/work/wt-edgebench";
process.argv[2] = "4"; process.argv[3] = "1";
