import { describe, expect, it } from "vitest";
import { parseTemplate, scanTemplate, type TemplatePart } from "../../../src/config/index.js";

const text = (t: string): TemplatePart => ({ kind: "text", text: t });
const ref = (service: string, property: string): TemplatePart => ({ kind: "ref", service, property });

describe("parseTemplate", () => {
  it.each<[string, TemplatePart[]]>([
    ["", []],
    ["plain", [text("plain")]],
    ["${api.url}", [ref("api", "url")]],
    ["http://${api.url}/v1", [text("http://"), ref("api", "url"), text("/v1")]],
    ["${a.url}${b.external_url}", [ref("a", "url"), ref("b", "external_url")]],
    ["$${api.url}", [text("${api.url}")]],
    ["a$${b}c", [text("a${b}c")]],
    ["${db.url} and $${literal}", [ref("db", "url"), text(" and ${literal}")]],
    ["$$", [text("$$")]],
    ["$HOME and $", [text("$HOME and $")]],
    ["{api.url}", [text("{api.url}")]],
    ["${ api.url }", [ref("api", "url")]],
    ["${database.password}", [ref("database", "password")]],
    ["${api.url", [text("${api.url")]],
    ["${}", [text("${}")]],
  ])("%j", (value, parts) => {
    expect(parseTemplate(value)).toEqual(parts);
  });
});

describe("scanTemplate problems", () => {
  it.each([
    ["${api.url", 0, "unclosed-reference"],
    ["x ${}", 2, "empty-reference"],
    ["${a.${b.url}}", 0, "nested-reference"],
    ["${api}", 0, "malformed-reference"],
    ["${api.url.x}", 0, "malformed-reference"],
    ["ok ${api.url} then ${bad", 19, "unclosed-reference"],
  ])("%j", (value, index, code) => {
    const s = scanTemplate(value);
    expect(s.problems).toEqual([expect.objectContaining({ index, code })]);
  });

  it("reports where each reference is", () => {
    expect(scanTemplate("a ${x.url} b ${y.host}").refs.map((r) => [r.index, r.text])).toEqual([
      [2, "${x.url}"],
      [13, "${y.host}"],
    ]);
  });
});
