// The Function URL's CORS settings (serverless.yml, resources.McpFunctionUrl), from the one file that
// holds them for API Gateway, serverless offline and the function's own preflight: src/http/cors.json.
// A Function URL answers preflights itself and takes no OPTIONS in its method list.
const cors = require("../src/http/cors.json");

module.exports = {
  cors: {
    AllowOrigins: cors.allowedOrigins,
    AllowHeaders: cors.allowedHeaders,
    AllowMethods: cors.allowedMethods.filter((method) => method !== "OPTIONS"),
    ExposeHeaders: cors.exposedResponseHeaders,
    MaxAge: cors.maxAge,
  },
};
