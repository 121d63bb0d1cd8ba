// The HTTP rules of `/mcp` live in src/http/middleware/, one file each, composed by its index.ts;
// these names stay here for the tests that check a rule alone.

export { refusePostHeaders } from "./middleware/contentHeaders.js";
export type { Refusal } from "./middleware/edge.js";
export type { EdgeSettings as RuleSettings } from "./middleware/index.js";
export { isOriginAllowed, refuseForeignOrigin } from "./middleware/origin.js";
export { isWellFormedSessionId } from "./middleware/sessionHeader.js";
