/** Credentials in remote URLs, removed before a URL reaches a model, a log or a terminal. */

export const REDACTED = "***";

/** Schemes whose user name is a login, not a secret (`ssh://git@host/...`); a password after it still is. */
const SSH_SCHEMES = new Set(["ssh", "git+ssh", "ssh+git"]);

/** Query parameters that carry secrets in URLs some hosts hand out (`?private_token=...`, signed URLs). */
const SECRET_PARAMETER = /token|secret|passw|pwd|auth|key|sig|credential/i;

export interface RedactedUrl {
  url: string;
  /** Whether anything was removed. */
  redacted: boolean;
}

/**
 * Removes credentials from a remote URL: the whole user-info part of `scheme://user:password@host/...` (a user
 * name alone can be a token, as in `https://<token>@host/...`; only an ssh login without a password is kept),
 * a password in the scp-like form `user:password@host:path`, and the values of secret-looking query parameters.
 */
export function redactUrl(url: string): RedactedUrl {
  let result = url;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)/i.exec(result);
  if (scheme !== null) {
    const authority = scheme[2]!;
    const at = authority.lastIndexOf("@");
    if (at !== -1) {
      const userInfo = authority.slice(0, at);
      const keep = SSH_SCHEMES.has(scheme[1]!.toLowerCase()) && !userInfo.includes(":");
      if (!keep) {
        const start = scheme[1]!.length + 3;
        result = `${result.slice(0, start)}${REDACTED}${result.slice(start + at)}`;
      }
    }
    result = redactQuery(result);
  } else {
    // scp-like `[user@]host:path`: only a password (a `:` before the `@`) is a secret.
    const scp = /^([^/@:]*):([^/@]*)@/.exec(result);
    if (scp !== null) result = `${REDACTED}${result.slice(scp[0].length - 1)}`;
  }
  return { url: result, redacted: result !== url };
}

function redactQuery(url: string): string {
  const question = url.indexOf("?");
  if (question === -1) return url;
  const hash = url.indexOf("#", question);
  const end = hash === -1 ? url.length : hash;
  const query = url
    .slice(question + 1, end)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      if (equals === -1) return pair;
      return SECRET_PARAMETER.test(pair.slice(0, equals)) ? `${pair.slice(0, equals)}=${REDACTED}` : pair;
    })
    .join("&");
  return `${url.slice(0, question + 1)}${query}${url.slice(end)}`;
}
