import { describe, expect, it } from "vitest";
import { DockerignoreError, findGlobSyntaxError, parseDockerignore } from "../../../../src/targets/shared/dockerignore.js";

/** Docker's pattern rules (moby/patternmatcher, BuildKit's walker), one table row each. */
describe("parseDockerignore: what BuildKit leaves out", () => {
  it.each([
    // [lines, path, ignored]
    ["*.md\n!README.md", "notes.md", true],
    ["*.md\n!README.md", "README.md", false],
    ["*.md", "docs/notes.md", false], // `*` stops at "/": only the top level
    ["**/*.md", "docs/deep/notes.md", true],
    ["**/*.md", "notes.md", true], // `**` matches zero directories too
    ["dir", "dir", true],
    ["dir", "dir/a/b.txt", true], // a pattern that matches a directory covers what is below it
    ["dir", "other/dir", false], // patterns are anchored at the context root
    ["dir/", "dir/file", true],
    ["/build", "build/x", true], // a leading "/" is the context root
    ["./build", "build", true],
    ["data\n!data/seed.json", "data/seed.json", false],
    ["data\n!data/seed.json", "data/other.json", true],
    ["!data/seed.json\ndata", "data/seed.json", true], // the last matching line wins
    ["node_modules\n!node_modules/keep/**", "node_modules/keep/a/b.js", false],
    ["*.PY", "main.py", false], // case-sensitive, as Docker on Linux
    ["# a comment", "# a comment", false],
    [" #not-a-comment", "#not-a-comment", true], // only a line that starts with "#" is a comment
    ["  spaced.txt  ", "spaced.txt", true],
    ["file?.txt", "file1.txt", true],
    ["file[0-9].txt", "fileA.txt", false],
    ["\\*literal", "*literal", true],
    ["\uFEFFbom.txt", "bom.txt", true],
    ["a\r\nb", "b", true],
    ["", "anything", false],
  ])("%j: %s ignored=%s", (text, path, ignored) => {
    expect(parseDockerignore(text, ".dockerignore").ignores(path)).toBe(ignored);
  });
});

describe("parseDockerignore: which ignored directories BuildKit still walks", () => {
  it("walks none without exceptions", () => {
    expect(parseDockerignore("node_modules\n", "x").mayReincludeBelow("node_modules")).toBe(false);
  });
  it("walks only the directories a plain exception lies below", () => {
    const rules = parseDockerignore("data\nlogs\n!data/keep/seed.json\n", "x");
    expect(rules.mayReincludeBelow("data")).toBe(true);
    expect(rules.mayReincludeBelow("data/keep")).toBe(true);
    expect(rules.mayReincludeBelow("data/other")).toBe(false);
    expect(rules.mayReincludeBelow("logs")).toBe(false);
  });
  it("walks every ignored directory when an exception has a glob", () => {
    expect(parseDockerignore("node_modules\n!**/LICENSE\n", "x").mayReincludeBelow("node_modules")).toBe(true);
  });
  it("treats a trailing /** or /* of an exception as the directory itself", () => {
    const rules = parseDockerignore("vendor\n!vendor/ours/**\n", "x");
    expect(rules.mayReincludeBelow("vendor")).toBe(true);
    expect(rules.mayReincludeBelow("vendor/theirs")).toBe(false);
  });
});

describe("parseDockerignore: patterns Docker refuses", () => {
  it.each([
    ["[", "unterminated [...]"],
    ["[]a]", "bad character range"],
    ["[a-]", "bad character range"],
    ["[^]", "bad character range"],
    ["trailing\\", "trailing backslash"],
    ["!", 'a lone "!"'],
    ["bad(", "Invalid regular expression"],
  ])("%j: a clear error with the file and line", (pattern, reason) => {
    const parse = () => parseDockerignore(`# ok\nfine.txt\n${pattern}\n`, "api/.dockerignore");
    expect(parse).toThrow(DockerignoreError);
    expect(parse).toThrow(`api/.dockerignore:3: invalid .dockerignore pattern "${pattern}": ${reason}`);
  });

  it.each(["[a-z]*.txt", "[^.]*", "\\[x\\]", "a[\\]]b", "**", "*/*/x"])("accepts %j", (pattern) => {
    expect(findGlobSyntaxError(pattern)).toBeUndefined();
  });
});
