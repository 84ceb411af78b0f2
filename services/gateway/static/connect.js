// The Connect protocol from the browser: unary JSON calls and server streams (envelopes).
// No library and no build step; see services/gateway/connect.py for the server side.

export class ConnectError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
    this.reason = message;
  }
}

function headers(token, contentType, timeoutMs = 0) {
  const h = { "Content-Type": contentType, "Connect-Protocol-Version": "1" };
  if (token) h.Authorization = `Bearer ${token}`;
  if (timeoutMs) h["Connect-Timeout-Ms"] = String(timeoutMs);
  return h;
}

// The code of an error answer that carries none (a proxy's own page: 502, 503, 504 when the
// gateway does not answer), from its HTTP status, as the Connect protocol maps them.
const HTTP_CODES = { 400: "internal", 401: "unauthenticated", 403: "permission_denied", 404: "unimplemented",
                     429: "unavailable", 502: "unavailable", 503: "unavailable", 504: "unavailable" };
const codeOf = (data, response) => data.code || HTTP_CODES[response.status] || "unknown";

// fetch, a network failure (the gateway down or unreachable) as an `unavailable` ConnectError.
async function post(path, init) {
  try {
    return await fetch(path, { method: "POST", ...init });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ConnectError("unavailable", `the gateway does not answer (${err.message})`);
  }
}

// `timeoutMs`: how long the service may take (Connect-Timeout-Ms; 0: the gateway's default).
export async function unary(path, body = {}, token = "", timeoutMs = 0) {
  const response = await post(path, { headers: headers(token, "application/json", timeoutMs), body: JSON.stringify(body) });
  const data = await response.json().catch(() => ({ message: response.statusText }));
  if (!response.ok) throw new ConnectError(codeOf(data, response), data.message || "");
  return data;
}

function envelope(message) {
  const bytes = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(5 + bytes.length);
  new DataView(out.buffer).setUint32(1, bytes.length);
  out.set(bytes, 5);
  return out;
}

// Yields each message of a server stream; throws ConnectError when the stream ends with one.
export async function* serverStream(path, body = {}, token = "", signal = undefined) {
  const response = await post(path, { headers: headers(token, "application/connect+json"), body: envelope(body), signal });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new ConnectError(codeOf(data, response), data.message || response.statusText);
  }
  const reader = response.body.getReader();
  let buffer = new Uint8Array(0);
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read().catch((err) => {
      if (err.name === "AbortError") throw err;
      throw new ConnectError("unavailable", `the stream was cut (${err.message})`);
    });
    if (value) {
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
    }
    while (buffer.length >= 5) {
      const view = new DataView(buffer.buffer, buffer.byteOffset);
      const flags = view.getUint8(0);
      const length = view.getUint32(1);
      if (buffer.length < 5 + length) break;
      const message = JSON.parse(decoder.decode(buffer.subarray(5, 5 + length)));
      buffer = buffer.slice(5 + length);
      if (flags & 0x02) {
        if (message.error) throw new ConnectError(message.error.code, message.error.message || "");
        return;
      }
      yield message;
    }
    // Connect ends every stream with its end message: a body that ends without one was cut
    // (the gateway stopped, a proxy timed out), which is not the stream's end
    if (done) throw new ConnectError("unavailable", "the stream was cut before its end");
  }
}
