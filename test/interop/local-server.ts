import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP server on 127.0.0.1 at a free port, the base of the fake model APIs: the real CLIs
 * talk only to it.
 */
export class LocalServer {
  private constructor(private readonly server: Server) {}

  static async start(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
    const server = createServer(handle);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return new LocalServer(server);
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A request's path without its query, and its body as a JSON object ({} when empty or not JSON). */
export async function readRequest(req: IncomingMessage): Promise<{ readonly path: string; readonly body: Record<string, unknown> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: Record<string, unknown> = {};
  try {
    const raw = Buffer.concat(chunks).toString("utf8");
    const value: unknown = raw === "" ? {} : JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) body = value as Record<string, unknown>;
  } catch {
    // recorded with an empty body
  }
  return { path: (req.url ?? "/").split("?")[0] ?? "/", body };
}

/** One JSON answer with its length. */
export function sendJson(res: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
