import fs from "node:fs";
import net from "node:net";

// Raw HTTP/1.1 over a socket, for what fetch cannot do: lie about a body, send it slowly,
// drop it halfway, or keep a connection idle.

export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}

/** Everything the server sends until it closes the connection or `ms` pass; `closed` says which. */
export function collect(s: net.Socket, ms: number): Promise<{ text: string; closed: boolean; after: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let text = "";
    const done = (closed: boolean) => {
      clearTimeout(timer);
      s.removeAllListeners("data");
      resolve({ text, closed, after: Date.now() - t0 });
    };
    const timer = setTimeout(() => done(false), ms);
    s.on("data", (d) => (text += d.toString("latin1")));
    s.once("close", () => done(true));
    s.on("error", () => {});
  });
}

export const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

/** Resident memory of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/**
 * Streams a chunked body of up to `totalBytes` until the server answers or closes; returns the
 * answer and how many body bytes were sent before it (or, with ignoreAnswer, in all).
 */
export async function chunkedPost(
  port: number,
  path: string,
  totalBytes: number,
  contentType = "application/x-www-form-urlencoded",
  opts: { ignoreAnswer?: boolean } = {},
) {
  const s = await connect(port);
  s.on("error", () => {});
  let text = "";
  let closed = false;
  s.on("data", (d) => (text += d.toString("latin1")));
  s.on("close", () => (closed = true));
  s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  // ignoreAnswer: a client that sends its whole body whatever the server answers meanwhile.
  while (sent < totalBytes && (opts.ignoreAnswer || !text) && !closed) {
    s.write(`${chunk.length.toString(16)}\r\n`);
    s.write(chunk);
    const ok = s.write("\r\n");
    sent += chunk.length;
    // A client that reads while it sends: yield after every chunk, so the server's answer is
    // seen as soon as it comes (a synchronous loop kept writing until the kernel's buffers were
    // full, megabytes past the answer, and the server then had to read them all).
    if (!ok)
      await new Promise<void>((r) => {
        const t = setTimeout(r, 200);
        s.once("drain", () => {
          clearTimeout(t);
          r();
        });
      });
    else await new Promise((r) => setImmediate(r));
  }
  if (!text && !closed) s.write("0\r\n\r\n");
  const deadline = Date.now() + 120_000; // a hang guard
  while (!text && !closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  s.destroy();
  return { status: statusOf(text), text, sent };
}
