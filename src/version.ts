/** The CLI version, recorded in every deployment record. Kept in step with package.json by a test. */
export const PLATFORM_VERSION = "0.1.0";
