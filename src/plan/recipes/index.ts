/** Build recipes for the `source` shorthand: one per service type, pure over a SourceSnapshot. */
export { buildFastapiRecipe, type FastapiRecipeOptions } from "./fastapi.js";
export { buildNextjsRecipe, type NextjsRecipeOptions } from "./nextjs.js";
export { RecipeError, type BaseImages, type Recipe, type SourceSnapshot } from "./types.js";
// The one I/O piece lives beside plan (plan itself stays pure); re-exported for callers.
export { scanSource } from "../scan-source.js";
