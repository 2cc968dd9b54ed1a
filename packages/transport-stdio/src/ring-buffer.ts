/** Keeps the last `capacity` characters of a text stream, without re-copying on every append. */
export class TextRingBuffer {
  private chunks: string[] = [];
  private size = 0;
  constructor(readonly capacity: number) {}

  append(text: string): void {
    if (text.length === 0 || this.capacity <= 0) return;
    this.chunks.push(text);
    this.size += text.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.capacity && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** The retained text (at most `capacity` characters). */
  text(): string {
    const all = this.chunks.join('');
    return all.length > this.capacity ? all.slice(all.length - this.capacity) : all;
  }

  /** The last `count` non-empty lines. */
  lastLines(count: number): string {
    const lines = this.text()
      .split(/\r?\n/)
      .filter((l) => l.trim().length > 0);
    return lines.slice(-count).join('\n');
  }
}
