/**
 * URLs as callers and logs may see them: never with the `user:password@` of a URL such as
 * `PROMETHEUS_URL=https://user:secret@prometheus.example.com`.
 */

/** `user:password@` (or `user@`) right after a scheme's `//`, anywhere in a text. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

/** The URL without its user and password; text that is not a URL comes back with any userinfo cut. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === "" && parsed.password === "") return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return redactCredentials(url);
  }
}

/** Every `scheme://user:password@` in a text (an error message, a log line) becomes `scheme://`. */
export function redactCredentials(text: string): string {
  return text.replace(USERINFO, "$1");
}

/** True when the URL carries a user name or password. */
export function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return redactCredentials(url) !== url;
  }
}

/**
 * A URL's userinfo as an HTTP Basic `Authorization` value (what a browser or curl does with it), and
 * the URL without it: fetch refuses URLs that carry credentials, and the URL is shown in messages.
 */
export function splitCredentials(url: string): { url: string; basicAuth: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, basicAuth: undefined };
  }
  if (parsed.username === "" && parsed.password === "") return { url, basicAuth: undefined };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  return {
    url: withoutCredentials(url),
    basicAuth: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  };
}
