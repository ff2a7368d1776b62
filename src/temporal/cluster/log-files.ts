import fs from 'node:fs';

const TAIL_BYTES = 64 * 1024;

/** The last `lines` lines of a log file ('' when there is none), for error messages. */
export function readLogTail(file: string, lines = 30): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n').filter(Boolean).slice(-lines).join('\n');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A check that a line matching `pattern` has been written to `file` since `offset`: reads only
 * what is new at each call.
 */
export function logLineWatcher(opts: { file: string; offset: number; pattern: RegExp }): () => boolean {
  let position = opts.offset;
  let partial = '';
  let found = false;
  return () => {
    if (found) return true;
    let fd: number | undefined;
    try {
      fd = fs.openSync(opts.file, 'r');
      const size = fs.fstatSync(fd).size;
      while (position < size && !found) {
        const length = Math.min(size - position, TAIL_BYTES);
        const buffer = Buffer.alloc(length);
        fs.readSync(fd, buffer, 0, length, position);
        position += length;
        const lines = (partial + buffer.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        found = lines.some((line) => opts.pattern.test(line));
      }
    } catch {
      // not written yet
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    return found;
  };
}
