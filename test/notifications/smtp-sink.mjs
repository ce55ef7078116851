// A real SMTP server in its own process (smtp-server): prints `{"port":…}` once listening, then one
// JSON line per message received: {"from", "to", "raw"}. Plain SMTP on loopback, no auth, no TLS.
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : null;
      const to = session.envelope.rcptTo.map((r) => r.address);
      process.stdout.write(`${JSON.stringify({ from, to, raw: Buffer.concat(chunks).toString('utf8') })}\n`);
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.server.address().port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
