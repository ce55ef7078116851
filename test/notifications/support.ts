import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface SmtpSink {
  port: number;
  /** Resolves with the next message received (or one already received and not yet taken). */
  next(): Promise<{ from: string | null; to: string[]; raw: string }>;
  stop(): Promise<void>;
}

/** Starts test/notifications/smtp-sink.mjs (smtp-server) in a child process. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(new URL('./smtp-sink.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const messages: Array<{ from: string | null; to: string[]; raw: string }> = [];
  const waiting: Array<(m: (typeof messages)[number]) => void> = [];
  let buffered = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`smtp sink exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = JSON.parse(buffered.slice(0, nl)) as { port?: number; from?: string | null; to?: string[]; raw?: string };
        buffered = buffered.slice(nl + 1);
        if (line.port !== undefined) resolve(line.port);
        else {
          const message = { from: line.from ?? null, to: line.to ?? [], raw: line.raw ?? '' };
          const waiter = waiting.shift();
          if (waiter) waiter(message);
          else messages.push(message);
        }
      }
    });
  });
  return {
    port,
    next: () => new Promise((resolve) => {
      const ready = messages.shift();
      if (ready) resolve(ready);
      else waiting.push(resolve);
    }),
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** The text of a MIME body part in quoted-printable (what nodemailer uses for mostly-ASCII text). */
export function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local HTTP server standing in for a provider: records each request and answers with `reply`. */
export async function startProviderServer(reply: (req: RecordedRequest) => { status: number; body: unknown }): Promise<{ url: string; requests: RecordedRequest[]; waitFor(n: number): Promise<void>; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const answer = reply(recorded);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(n) {
      while (requests.length < n) await new Promise((r) => setTimeout(r, 20));
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
