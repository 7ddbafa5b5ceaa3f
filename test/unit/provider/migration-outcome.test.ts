import { describe, expect, it } from "vitest";
import { jobEnd } from "../../../src/provider/kubernetes/migration-outcome.js";

describe("the end of a migration Job", () => {
  it("Complete or Failed once the controller says so (status True); undefined while it runs", () => {
    expect(jobEnd({ status: {} })).toBeUndefined();
    expect(jobEnd({ status: { conditions: [{ type: "Suspended", status: "True" }] } })).toBeUndefined();
    expect(jobEnd({ status: { conditions: [{ type: "Failed", status: "False" }] } })).toBeUndefined();
    expect(
      jobEnd({
        status: {
          conditions: [
            { type: "FailureTarget", status: "True" },
            { type: "Failed", status: "True" },
          ],
        },
      }),
    ).toBe("Failed");
    expect(
      jobEnd({
        status: {
          conditions: [
            { type: "SuccessCriteriaMet", status: "True" },
            { type: "Complete", status: "True" },
          ],
        },
      }),
    ).toBe("Complete");
  });
});
