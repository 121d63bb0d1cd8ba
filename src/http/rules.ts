// The HTTP rules of `/mcp` live in src/http/middleware/, one file each, composed by its index.ts; the
// rules a test checks alone by these names stay reachable here.
export { refusePostHeaders } from "./middleware/contentHeaders.js";
export { refuseForeignOrigin } from "./middleware/origin.js";
