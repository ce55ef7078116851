import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';

/** Owner-only modes for DATA_DIR and what it holds: API secrets are encrypted under a key kept there. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the directory owner-only, or tightens an existing one. A shared sticky directory
 * (such as /tmp given as DATA_DIR) is left alone: tightening it would break everyone else.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const { mode } = statSync(dir);
  if ((mode & 0o1000) === 0 && (mode & 0o077) !== 0) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Tightens each existing file to owner-only (missing ones are skipped). */
export function makePrivate(...files: string[]): void {
  for (const file of files) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
  }
}

/** Creates the file empty and owner-only if it does not exist (SQLite gives its -wal and -shm files the same mode). */
export function touchPrivate(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  makePrivate(file);
}

/** Writes (or replaces) a file only its owner can read. */
export function writePrivateFile(file: string, text: string): void {
  writeFileSync(file, text, { mode: PRIVATE_FILE_MODE });
  makePrivate(file);
}
