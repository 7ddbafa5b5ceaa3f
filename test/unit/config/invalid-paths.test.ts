import { describe, expect, it } from "vitest";
import { check, expectDiagnostic, y } from "./helpers.js";

/** source and build paths, against the in-memory project of helpers.ts (TREE). */

const withSource = (source: string) => y`
  version: "1.0"
  name: shop
  services:
    api:
      type: fastapi
      source: ${source}
      public: true
`;

const withBuild = (lines: string) =>
  `version: "1.0"\nname: shop\nservices:\n  api:\n    type: fastapi\n    public: true\n    build:\n${lines}`;

const cases = [
  {
    name: "missing directory (typo)",
    yaml: withSource("./apii"),
    expect: '6:13 path-not-found directory "./apii" does not exist (did you mean "./api"?)',
    hint: "relative to the directory that holds platform.yml",
  },
  { name: "missing directory", yaml: withSource("./backend"), expect: '6:13 path-not-found directory "./backend" does not exist' },
  {
    name: "escape with ..",
    yaml: withSource("../other"),
    expect: '6:13 path-outside-project "../other" is outside the project directory',
    hint: "a deploy only sends that directory",
  },
  {
    name: "escape with a .. in the middle",
    yaml: withSource("./api/../../other"),
    expect: '6:13 path-outside-project "./api/../../other" is outside the project directory',
  },
  { name: "absolute path", yaml: withSource("/srv/api"), expect: '6:13 absolute-path "/srv/api" is an absolute path', hint: "./api" },
  {
    name: "a file, not a directory",
    yaml: withSource("./README.md"),
    expect: '6:13 not-a-directory "./README.md" is a file, not a directory',
  },
  {
    name: "symlink out of the project",
    yaml: withSource("./shared"),
    expect: '6:13 path-outside-project "./shared" leads outside the project directory through a symbolic link',
  },
  {
    name: "dockerfile missing",
    yaml: withBuild("      source: ./api\n      dockerfile: Dockerfile.prod\n"),
    expect: '9:19 dockerfile-not-found no file "Dockerfile.prod" in ./api (did you mean "Dockerfile.dev"?)',
    hint: "set build.dockerfile",
  },
  {
    name: "default Dockerfile missing",
    yaml: withBuild("      source: ./web\n"),
    expect: '8:15 dockerfile-not-found no file "Dockerfile" in ./web',
    hint: 'the default is "Dockerfile"',
  },
  {
    name: "dockerfile outside build.source",
    yaml: withBuild("      source: ./api\n      dockerfile: ../worker/Dockerfile\n"),
    expect: '9:19 dockerfile-outside dockerfile "../worker/Dockerfile" is not inside ./api',
  },
  {
    name: "dockerfile is a directory",
    yaml: withBuild("      source: ./\n      dockerfile: api\n"),
    expect: '9:19 dockerfile-not-found "api" in ./ is not a file',
  },
  {
    name: "build.source missing",
    yaml: withBuild("      source: ./nope\n"),
    expect: '8:15 path-not-found directory "./nope" does not exist',
  },
];

describe("invalid platform.yml: paths", () => {
  it.each(cases)("$name", ({ yaml, expect: expected, hint }) => {
    const r = check(yaml);
    expect(r.ok).toBe(false);
    expectDiagnostic(r, expected, hint);
  });

  it("a symlink that stays inside the project is fine", () => {
    expect(check(withSource("./inner")).errors).toEqual([]);
  });

  it("paths may be written without ./ and with a trailing slash", () => {
    expect(check(withSource("api/")).errors).toEqual([]);
    expect(check(withBuild("      source: worker\n")).errors).toEqual([]);
  });
});
