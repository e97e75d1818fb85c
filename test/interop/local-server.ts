import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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
