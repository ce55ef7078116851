import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { BSON } from 'mongodb';

/** OP_MSG, the only opcode the driver sends to a 4.2+ server (compression is off: no OP_COMPRESSED). */
const OP_MSG = 2013;

interface Request {
  command: string;
  /** The collection (or `*`: the database) the command deletes documents from, if it does. */
  removesFrom: string | null;
  /** `lsid.id` (hex) and `txnNumber` of a command inside a transaction: its transaction. */
  txn: string | null;
  collection: string | null;
  ids: string[];
}

/**
 * A TCP proxy in front of a MongoDB server that reads the wire protocol both ways and records, for
 * each transaction, the `_id`s it inserted and when the server acknowledged its commit (a
 * `commitTransaction` answered `ok: 1`). The server's own word, independent of the client's code:
 * a document the server acknowledged as committed and that is then missing was lost by the server.
 * The server's replies advertise the proxy's address instead of its own (same length: the proxy
 * listens on a port with as many digits), so a replica-set client stays on the proxy.
 */
export interface CommitWitness {
  /** The server's URL, through the proxy. */
  url: string;
  /** When the server acknowledged the commit of a transaction that inserted `id` into `collection`, or null. */
  commitAcknowledgedAt(collection: string, id: string): number | null;
  /** Every document a transaction inserted and whose commit the server acknowledged. */
  acknowledgedInserts(): Array<{ collection: string; id: string }>;
  /** Commands any client sent that delete from `collection` (delete, findAndModify remove, drop, dropDatabase). */
  removalsFrom(collection: string): number;
  close(): Promise<void>;
}

export async function startCommitWitness(serverUrl: string): Promise<CommitWitness> {
  const target = new URL(serverUrl);
  const serverAddress = Buffer.from(target.host);
  const inserts = new Map<string, Set<string>>(); // `${collection} ${id}` → transactions
  const committedAt = new Map<string, number>(); // transaction → first acknowledged commit
  const removals = new Map<string, number>(); // collection → commands deleting from it
  const sockets = new Set<Socket>();

  const proxy = createServer((client) => {
    const server = createConnection({ host: target.hostname, port: Number(target.port || 27017) });
    sockets.add(client).add(server);
    const pending = new Map<number, Request>(); // requestID → request, on this connection
    client.on('data', framer((message) => {
      server.write(message);
      const request = readRequest(message);
      if (!request) return;
      pending.set(message.readInt32LE(4), request);
      if (request.removesFrom) removals.set(request.removesFrom, (removals.get(request.removesFrom) ?? 0) + 1);
      for (const id of request.ids) {
        const key = `${request.collection} ${id}`;
        inserts.set(key, (inserts.get(key) ?? new Set()).add(request.txn!));
      }
    }));
    server.on('data', framer((message) => {
      client.write(replaceAll(message, serverAddress, proxyAddress));
      const responseTo = message.readInt32LE(8);
      const request = pending.get(responseTo);
      if (!request) return;
      pending.delete(responseTo);
      if (request.command === 'committransaction' && request.txn && !committedAt.has(request.txn) && replyOk(message)) {
        committedAt.set(request.txn, Date.now());
      }
    }));
    const end = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  });
  let proxyAddress = Buffer.alloc(0);
  for (let attempt = 0; proxyAddress.length !== serverAddress.length; attempt++) {
    if (attempt > 0) await new Promise((resolve) => proxy.close(resolve));
    if (attempt === 20) throw new Error(`no free port with as many digits as ${target.host}`);
    await new Promise<void>((resolve) => proxy.listen(0, target.hostname, resolve));
    proxyAddress = Buffer.from(`${target.hostname}:${(proxy.address() as AddressInfo).port}`);
  }
  const url = new URL(serverUrl);
  url.host = proxyAddress.toString();

  return {
    url: url.toString(),
    commitAcknowledgedAt(collection, id) {
      const times = [...(inserts.get(`${collection} ${id}`) ?? [])].flatMap((txn) => committedAt.get(txn) ?? []);
      return times.length > 0 ? Math.min(...times) : null;
    },
    acknowledgedInserts() {
      return [...inserts].filter(([, txns]) => [...txns].some((txn) => committedAt.has(txn))).map(([key]) => {
        const space = key.indexOf(' ');
        return { collection: key.slice(0, space), id: key.slice(space + 1) };
      });
    },
    removalsFrom: (collection) => (removals.get(collection) ?? 0) + (removals.get('*') ?? 0),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/** `from` replaced by `to` (of the same length) wherever it occurs. */
function replaceAll(message: Buffer, from: Buffer, to: Buffer): Buffer {
  let at = message.indexOf(from);
  if (at < 0) return message;
  const copy = Buffer.from(message);
  for (; at >= 0; at = copy.indexOf(from, at + from.length)) to.copy(copy, at);
  return copy;
}

/** Splits a byte stream into whole wire messages (each starts with its int32 length). */
function framer(onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let buffered: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
      const length = buffered.readInt32LE(0);
      onMessage(buffered.subarray(0, length));
      buffered = buffered.subarray(length);
    }
  };
}

/** An OP_MSG's body (kind 0 section) and document sequences (kind 1: identifier → documents). */
function readOpMsg(message: Buffer): { body: BSON.Document; sequences: Map<string, BSON.Document[]> } | null {
  if (message.readInt32LE(12) !== OP_MSG) return null;
  const flags = message.readUInt32LE(16);
  const end = message.length - (flags & 1 ? 4 : 0); // checksumPresent
  let at = 20;
  let body: BSON.Document | null = null;
  const sequences = new Map<string, BSON.Document[]>();
  while (at < end) {
    const kind = message[at]!;
    at += 1;
    const size = message.readInt32LE(at);
    if (kind === 0) {
      body = BSON.deserialize(message.subarray(at, at + size), { promoteLongs: false });
    } else {
      const nameEnd = message.indexOf(0, at + 4);
      const name = message.toString('utf8', at + 4, nameEnd);
      const documents: BSON.Document[] = [];
      for (let d = nameEnd + 1; d < at + size; d += message.readInt32LE(d)) documents.push(BSON.deserialize(message.subarray(d, d + message.readInt32LE(d))));
      sequences.set(name, documents);
    }
    at += size;
  }
  return body ? { body, sequences } : null;
}

function readRequest(message: Buffer): Request | null {
  const msg = readOpMsg(message);
  if (!msg) return null;
  const command = Object.keys(msg.body)[0]!.toLowerCase();
  const session = (msg.body.lsid as { id?: unknown } | undefined)?.id;
  const bytes = session instanceof Uint8Array ? session : session instanceof BSON.Binary ? session.buffer : null;
  const txn = bytes && msg.body.txnNumber !== undefined ? `${Buffer.from(bytes).toString('hex')}:${String(msg.body.txnNumber)}` : null;
  const documents = command === 'insert' ? (msg.sequences.get('documents') ?? (msg.body.documents as BSON.Document[] | undefined) ?? []) : [];
  const target = String(msg.body[Object.keys(msg.body)[0]!]);
  const removes = command === 'delete' || command === 'drop' || (command === 'findandmodify' && !!msg.body.remove);
  return {
    command,
    removesFrom: command === 'dropdatabase' ? '*' : removes ? target : null,
    txn,
    collection: command === 'insert' ? String(msg.body.insert) : null,
    ids: txn ? documents.map((d) => String(d._id)) : [],
  };
}

function replyOk(message: Buffer): boolean {
  const reply = readOpMsg(message);
  return !!reply && Number(reply.body.ok) === 1 && !reply.body.writeConcernError;
}
