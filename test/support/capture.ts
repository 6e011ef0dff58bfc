// A Writable that keeps what was written, for a command's stdout/stderr or a
// logger's destination in process.
import { Writable } from 'node:stream';

export class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** A logger destination that appends each written chunk (one JSON line from pino) to `lines`. */
export function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
}
