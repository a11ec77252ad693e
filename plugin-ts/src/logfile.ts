/**
 * `<dataDir>/logs/somni.log`: the plugin's own lines and the sidecar's stderr, in one file a user can
 * open. The harness's logger is not shown in headless mode, and a user who asks "why is memory off"
 * needs one place to look. Append-only, 0600 (lines carry paths and error text from the user's
 * machine), rotated to `somni.log.1` past a size bound, and it never throws into the host: a log
 * write that fails is dropped.
 */
import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format } from 'node:util';
import { clip } from './clip.js';
import type { Log } from './sidecar.js';

/** Level words as the sidecar writes them, so both halves of the file read alike. */
export type LevelWord = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';

/** Bounds of the log file. */
export interface LogFileOptions {
  /** Rotate when the file would pass this many bytes (default 4 MiB). */
  maxBytes?: number;
  /** Characters kept of one line; the rest is replaced by a note (default 4096). */
  maxLineChars?: number;
}

/** Where the log file of a data directory lives. */
export function logFilePath(dataDir: string): string {
  return join(dataDir, 'logs', 'somni.log');
}

const RANK: Record<LevelWord, number> = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40 };

/**
 * One line as written: control characters (a stray `\r` or escape sequence from a child) become
 * spaces so a line is one line, and an overlong line is cut with a visible count.
 */
export function boundLine(text: string, maxChars: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, ' ');
  return clip(flat, maxChars, 'removed');
}

/** Append-only log file with one-step rotation. Every method swallows its own I/O errors. */
export class LogFile {
  private fd: number | undefined;
  private size = 0;
  private failed = false;
  private readonly maxBytes: number;
  private readonly maxLineChars: number;

  /**
   * @param path - the file (its folder is created with 0700 on first write).
   * @param options - size and line bounds.
   */
  constructor(
    readonly path: string,
    options: LogFileOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
    this.maxLineChars = options.maxLineChars ?? 4096;
  }

  /**
   * Writes one line as it is (the sidecar's stderr already reads `<time> LEVEL logger message`).
   * @param line - the raw line; bounded and flattened before writing.
   */
  writeRaw(line: string): void {
    if (line.trim() === '') return;
    this.append(boundLine(line, this.maxLineChars) + '\n');
  }

  /**
   * Writes one line of the sidecar's stderr. Its own log lines already read `<time> LEVEL logger
   * message` and go in as they are; anything else on its stderr (a loader error, a Go panic, a
   * wrapper script's complaint) is not the sidecar's logging and gets a time and ERROR in front.
   */
  writeStderr(line: string): void {
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(line)) this.writeRaw(line);
    else this.write('ERROR', 'somni:sidecar', line);
  }

  /**
   * Writes `<ISO time> LEVEL logger message`, the sidecar's own line shape.
   * @param level - level word.
   * @param logger - logger name (e.g. `somni`).
   * @param message - already formatted text.
   */
  write(level: LevelWord, logger: string, message: string): void {
    this.writeRaw(`${new Date().toISOString()} ${level} ${logger} ${message}`);
  }

  /** Closes the file; later writes reopen it. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // nothing to do: the descriptor is gone either way
    }
    this.fd = undefined;
  }

  private append(text: string): void {
    try {
      const bytes = Buffer.byteLength(text);
      if (this.fd === undefined) this.open();
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      if (this.fd === undefined) return;
      writeSync(this.fd, text);
      this.size += bytes;
      this.failed = false;
    } catch {
      // A full disk or a removed folder must not break a turn: drop the line, retry on the next one.
      this.close();
      this.failed = true;
    }
  }

  private open(): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    // 'a' = O_APPEND: lines from two harnesses on one data dir interleave whole, never overwrite.
    const fd = openSync(this.path, 'a', 0o600);
    try {
      // A file made by an older version, or with a loose umask, is tightened to the mode we create.
      if (process.platform !== 'win32') fchmodSync(fd, 0o600);
    } catch {
      // not our file to change (another user's); writing still works
    }
    this.fd = fd;
    this.size = fstatSync(fd).size;
  }

  private rotate(): void {
    const fd = this.fd!;
    let ours = true;
    try {
      // Another process on the same data dir may have rotated already: then our descriptor points
      // at somni.log.1 and the fresh somni.log just needs reopening, not another rename.
      ours = statSync(this.path).ino === fstatSync(fd).ino;
    } catch {
      ours = false;
    }
    this.close();
    if (ours) renameSync(this.path, `${this.path}.1`);
    this.open();
  }

  /** True after the last write failed (diagnostics/tests). */
  get lastWriteFailed(): boolean {
    return this.failed;
  }
}

/** The level word of a config log level. */
export function levelWord(level: 'debug' | 'info' | 'warning' | 'error'): LevelWord {
  return level === 'warning' ? 'WARNING' : (level.toUpperCase() as LevelWord);
}

/**
 * A logger that writes to the host's logger and to the log file, the file at or above `minLevel`.
 * Formatting follows the host logger's printf style (`%s`, `%d`, `%o`) via `util.format`.
 * @param host - `ctx.logger(name)`.
 * @param file - the log file.
 * @param name - logger name written into the file.
 * @param minLevel - lowest level written to the file.
 */
export function teeLog(host: Log, file: LogFile, name: string, minLevel: LevelWord): Log {
  const min = RANK[minLevel];
  const to = (level: LevelWord, fn: (f: string, ...a: unknown[]) => void) => (f: string, ...args: unknown[]): void => {
    fn(f, ...args);
    if (RANK[level] < min) return;
    let text: string;
    try {
      text = format(f, ...args);
    } catch {
      text = String(f);
    }
    file.write(level, name, text);
  };
  return {
    debug: to('DEBUG', host.debug.bind(host)),
    info: to('INFO', host.info.bind(host)),
    warn: to('WARNING', host.warn.bind(host)),
    error: to('ERROR', host.error.bind(host)),
  };
}
