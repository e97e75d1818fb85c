/**
 * For the interop files: a model API on 127.0.0.1 that refuses every request with one HTTP
 * status and the Messages API's error body, so a real CLI's auth (401) and rate-limit (429)
 * failures can be seen offline.
 */
import { createServer, type Server } from "node:http";

const BODIES: Record<number, { type: string; message: string }> = {
  401: { type: "authentication_error", message: "invalid x-api-key" },
  429: { type: "rate_limit_error", message: "This request would exceed your account's rate limit. Please try again later." },
};

export class RefusingApi {
  private constructor(private readonly server: Server, readonly url: string, readonly requests: string[]) {}

  static async start(status: 401 | 429): Promise<RefusingApi> {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method ?? ""} ${req.url ?? ""}`);
      req.resume();
      req.on("end", () => {
        const body = JSON.stringify({ type: "error", error: BODIES[status] });
        res.writeHead(status, { "content-type": "application/json", "request-id": "req_refused", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    return new RefusingApi(server, `http://127.0.0.1:${address.port}`, requests);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
