/** Real HTTP receivers on 127.0.0.1 for the webhook tests, and what they are sent. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import type { Logger } from "../../src/log/logger.js";
import type { NotifyEvent } from "../../src/notify/webhook.js";

export interface Received {
  readonly method: string | undefined;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
  readonly at: number;
}

export interface TestServer {
  readonly url: string;
  readonly received: Received[];
}

const servers: Server[] = [];

/** Closes every receiver `serve` started: for afterEach. */
export async function closeReceivers(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A server whose `answer(n, res)` handles the n-th request (1-based), after its body arrived. */
export async function serve(answer: (n: number, res: ServerResponse) => void): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method, contentType: req.headers["content-type"], authorization: req.headers.authorization, body: Buffer.concat(parts).toString("utf8"), at: Date.now() });
      answer(received.length, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/secret-token?key=abc`, received };
}

export const status = (code: number) => (_n: number, res: ServerResponse): void => void res.writeHead(code).end("{}");

/** A port nothing listens on: taken, then given back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A receiver that never answers, counting the connections open at once and the requests sent. */
export async function silent(): Promise<{ url: string; most: () => number; requests: () => number; close: () => void }> {
  const sockets = new Set<Socket>();
  let most = 0;
  let requests = 0;
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    most = Math.max(most, sockets.size);
    socket.on("data", () => void requests++);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, most: () => most, requests: () => requests, close: () => { for (const s of sockets) s.destroy(); server.close(); } };
}

export function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => void lines.push(`info ${m}`), warn: (m) => void lines.push(`warn ${m}`), close: () => undefined };
}

export const EVENT: NotifyEvent = {
  kind: "captured",
  agent: "amp",
  id: "T-019c479a-39cc-72af-a2d1-65a965c076ec",
  cwd: "/home/coder/project",
  pointer: "/home/coder/.amp-module/sessionpin-amp.json",
  time: "2026-11-22T21:38:58.282Z",
};
