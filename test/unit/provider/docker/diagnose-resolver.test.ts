import { describe, expect, it } from "vitest";
import { diagnoseBuildLog } from "../../../../src/provider/docker/build-diagnoses.js";

/** A resolver's refusal, as pip, uv and npm write it: the repository's declared dependencies conflict. */
describe("dependency resolver conflicts in a build", () => {
  it("pip: ResolutionImpossible with the conflict's causes quoted", () => {
    const log = `#9 12.31 INFO: pip is looking at multiple versions of celery to determine which version is compatible with other requirements.
#9 14.02 ERROR: Cannot install -r requirements.txt (line 1) and redis==5.0.1 because these package versions have conflicting dependencies.
#9 14.02
#9 14.02 The conflict is caused by:
#9 14.02     The user requested redis==5.0.1
#9 14.02     celery[redis] 5.5.0 depends on redis!=4.5.5, <6.0.0 and >=4.5.2; extra == "redis"
#9 14.02
#9 14.02 ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts`;
    const d = diagnoseBuildLog(log.replace(/^#9 [\d.]+ ?/gm, ""));
    expect(d).toMatch(
      /^the project's declared dependencies conflict: the resolver found no set of versions that satisfies them all \(The user requested redis==5\.0\.1; celery\[redis\] 5\.5\.0 depends on redis/,
    );
    expect(d).toMatch(/change the pins it names/);
  });

  it("uv: no solution, with its explanation", () => {
    const log = `  × No solution found when resolving dependencies:
  ╰─▶ Because fastapi==0.115.0 depends on starlette>=0.37.2,<0.39.0 and you require starlette==0.41.0, we can conclude that your requirements are unsatisfiable.`;
    expect(diagnoseBuildLog(log)).toMatch(
      /\(Because fastapi==0\.115\.0 depends on starlette>=0\.37\.2,<0\.39\.0 and you require starlette==0\.41\.0, we can conclude that your requirements are unsatisfiable\.\)/,
    );
  });

  it("npm: ERESOLVE with the peer range and what the tree has", () => {
    const log = `npm error code ERESOLVE
npm error ERESOLVE unable to resolve dependency tree
npm error
npm error While resolving: my-app@0.1.0
npm error Found: react@19.0.0
npm error node_modules/react
npm error   react@"19.0.0" from the root project
npm error
npm error Could not resolve dependency:
npm error peer react@"^18.2.0" from react-day-picker@8.10.1`;
    expect(diagnoseBuildLog(log)).toBe(
      `npm's resolver refused the dependency tree: a peer dependency's range is not met (peer react@"^18.2.0" from react-day-picker@8.10.1, and the tree has react@19.0.0); align the versions in package.json and commit package-lock.json, or, if the lockfile was made that way, set legacy-peer-deps=true in the repository's .npmrc`,
    );
  });

  it("next build stopped by @t3-oss/env: the variables the build lacks", () => {
    const log = `> next build
❌ Invalid environment variables: { AUTH_SECRET: [ 'Required' ], DATABASE_URL: [ 'Required' ] }
 ⨯ Failed to load next.config.js`;
    expect(diagnoseBuildLog(log)).toMatch(/AUTH_SECRET, DATABASE_URL are missing or invalid/);
  });
});
