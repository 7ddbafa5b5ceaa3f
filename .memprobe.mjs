import {readFileSync} from "node:fs";
const t0=Date.now();
for (const m of process.argv.slice(2)) await import(m);
const t1=Date.now();
setTimeout(()=>{const s=readFileSync("/proc/self/status","utf8");const mu=process.memoryUsage();console.log(process.argv.slice(2).map(x=>x.split("/").slice(-2).join("/")).join(","), s.match(/VmHWM.*|RssAnon.*|RssFile.*/g).join(" ").replace(/\s+/g," "), "heapUsed", (mu.heapUsed/1048576).toFixed(0), "heapTotal",(mu.heapTotal/1048576).toFixed(0), "ext",(mu.external/1048576).toFixed(0), "load ms", t1-t0)},200);
