import { corsHeaders, type HttpResponse, jsonResponse } from "../http/responses.js";

export function handleHealth(service: string, version: string, origin: string | undefined): HttpResponse {
  const body = { status: "healthy", service, version, timestamp: new Date().toISOString() };
  return jsonResponse(200, body, corsHeaders(origin, true));
}
