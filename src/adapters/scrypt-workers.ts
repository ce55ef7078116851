import { Worker } from 'node:worker_threads';
import { scryptOptionsOf, type DeriveKey, type ScryptJob } from '../ports/key-derivation.js';

/**
 * The worker's whole program: plain CommonJS evaluated from this string, so it runs the same under
 * tsx, vitest and the compiled build (no file path to resolve).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
try {
  // Linux keeps a nice value per thread: this one alone goes below the event loop (relative to it:
  // a process started under nice keeps its hashing below it too).
  const os = require('node:os');
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  os.setPriority(tid, Math.min(19, os.getPriority(tid) + workerData.niceness));
} catch {}
parentPort.on('message', (job) => {
  try {
    parentPort.postMessage({ key: scryptSync(job.password, job.salt, job.keyBytes, job.options) });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

interface Task {
  job: ScryptJob;
  resolve: (key: Buffer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
}

/**
 * scrypt on a few worker threads of their own, each at a lower CPU priority than the event loop
 * (`niceness` above the process's own nice value, Linux; elsewhere the default): a hash then takes the CPU that requests leave, instead
 * of a libuv thread racing the event loop (libuv's pool also serves file and DNS work). Threads
 * start on first use, one per job up to `threads`; jobs beyond wait in order (the password hasher
 * already bounds how many come at once). A thread that dies fails its job and is replaced.
 */
export function createScryptWorkers(options: { threads: number; niceness: number }): { derive: DeriveKey; close(): Promise<void> } {
  const slots: Slot[] = [];
  const pending: Task[] = [];
  let closed = false;

  function start(): Slot {
    const slot: Slot = { worker: new Worker(WORKER_SOURCE, { eval: true, workerData: { niceness: options.niceness } }), task: null };
    const fail = (error: Error) => {
      const at = slots.indexOf(slot);
      if (at < 0) return;
      slots.splice(at, 1);
      slot.task?.reject(error);
      slot.task = null;
      void slot.worker.terminate();
      next();
    };
    slot.worker.on('message', (answer: { key?: Uint8Array; error?: string }) => {
      const task = slot.task;
      slot.task = null;
      slot.worker.unref();
      if (answer.key) task?.resolve(Buffer.from(answer.key.buffer, answer.key.byteOffset, answer.key.byteLength));
      else task?.reject(new Error(answer.error ?? 'scrypt failed'));
      next();
    });
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => fail(new Error(`scrypt worker exited with code ${code}`)));
    slot.worker.unref();
    slots.push(slot);
    return slot;
  }

  function next(): void {
    if (closed || pending.length === 0) return;
    const slot = slots.find((s) => s.task === null) ?? (slots.length < options.threads ? start() : undefined);
    if (!slot) return;
    const task = pending.shift()!;
    slot.task = task;
    // Held while it works: a hash in flight keeps the process alive, an idle thread does not.
    slot.worker.ref();
    const { password, salt, keyBytes } = task.job;
    slot.worker.postMessage({ password, salt, keyBytes, options: scryptOptionsOf(task.job) });
  }

  return {
    derive: (job) =>
      new Promise<Buffer>((resolve, reject) => {
        if (closed) return reject(new Error('password hashing has stopped'));
        pending.push({ job, resolve, reject });
        next();
      }),
    async close() {
      closed = true;
      const stopping = slots.splice(0);
      for (const task of pending.splice(0)) task.reject(new Error('password hashing has stopped'));
      for (const slot of stopping) slot.task?.reject(new Error('password hashing has stopped'));
      await Promise.all(stopping.map((slot) => slot.worker.terminate()));
    },
  };
}
