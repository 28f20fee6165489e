// The JSON text of answers that will not change (a finalized run's Run page and its pages of
// machines), kept so that a page polling them costs a map lookup instead of reading summaries
// and encoding JSON again. Least recently used first out, bounded by the bytes it holds.

export class AnswerCache {
  private readonly maxBytes: number;
  private readonly texts = new Map<string, string>();
  private bytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(key: string): string | undefined {
    const text = this.texts.get(key);
    if (text === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting makes this the most recently used.
    this.texts.delete(key);
    this.texts.set(key, text);
    return text;
  }

  set(key: string, text: string): void {
    const size = Buffer.byteLength(text);
    if (size > this.maxBytes) return;
    this.delete(key);
    this.texts.set(key, text);
    this.bytes += size;
    for (const [oldest, old] of this.texts) {
      if (this.bytes <= this.maxBytes) break;
      this.texts.delete(oldest);
      this.bytes -= Buffer.byteLength(old);
    }
  }

  private delete(key: string): void {
    const text = this.texts.get(key);
    if (text === undefined) return;
    this.texts.delete(key);
    this.bytes -= Buffer.byteLength(text);
  }
}
