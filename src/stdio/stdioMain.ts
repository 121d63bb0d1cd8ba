// The `prometheus-mcp-stdio` bin: scripts/build-stdio.mjs bundles this file to dist/stdio/stdio.js. It
// only starts the server; src/stdio/stdio.ts, which serves, runs nothing when it is imported.
import { serveStdio } from "./stdio.js";

await serveStdio();
