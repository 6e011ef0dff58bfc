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
