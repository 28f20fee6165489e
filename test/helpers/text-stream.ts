// A writable stream that keeps what is written as text, standing in for stdout or stderr (a
// terminal when the test says so) in tests of what is printed.
import { Writable } from 'node:stream';

export function textStream(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, text: () => text };
}
