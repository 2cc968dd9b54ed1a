import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JoinedWriter } from './joined-writer.js';
import { SENT } from './transport.js';

/** A real Writable that records each write it is handed and drains when told to. */
function recorder(highWaterMark = 1024) {
  const writes: string[] = [];
  let release: (() => void) | undefined;
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _enc, done) {
      writes.push(chunk);
      if (chunk.length >= highWaterMark) release = done;
      else done();
    },
  });
  return { stream, writes, drain: () => release?.() };
}

describe('JoinedWriter', () => {
  it('lines sent in one tick leave in one write, after the tick; the next tick starts a new one', async () => {
    const { stream, writes } = recorder();
    const writer = new JoinedWriter(() => stream);
    expect(writer.write('a\n')).toBe(SENT);
    writer.write('b\n');
    writer.write('c\n');
    expect(writes).toEqual([]);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(writes).toEqual(['a\nb\nc\n']);
    writer.write('d\n');
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('a burst leaves four lines at a time as it is sent, and the rest when the tick ends', async () => {
    const { stream, writes } = recorder();
    const writer = new JoinedWriter(() => stream);
    for (const line of 'abcdefghij') writer.write(`${line}\n`);
    expect(writes).toEqual(['a\nb\nc\nd\n', 'e\nf\ng\nh\n']);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(writes).toEqual(['a\nb\nc\nd\n', 'e\nf\ng\nh\n', 'i\nj\n']);
    // Exactly four: nothing is left for the tick's end, and the next tick starts afresh.
    for (const line of 'klmn') writer.write(`${line}\n`);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    writer.write('o\n');
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(writes.slice(3)).toEqual(['k\nl\nm\nn\n', 'o\n']);
  });

  it("'turn': the last line of a burst is no lone line: the next line of the turn leaves at its tick's end", async () => {
    const { stream, writes } = recorder();
    const writer = new JoinedWriter(() => stream, 'turn');
    const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));
    for (const line of 'abcde') writer.write(`${line}\n`);
    await tick();
    expect(writes).toEqual(['a\nb\nc\nd\n', 'e\n']);
    writer.write('f\n');
    await tick();
    expect(writes).toEqual(['a\nb\nc\nd\n', 'e\n', 'f\n']);
  });

  it('a write that fills the stream in the middle of a burst waits for it to drain', async () => {
    const { stream, writes, drain } = recorder(8);
    const writer = new JoinedWriter(() => stream);
    expect(writer.write('a\n')).toBe(SENT);
    writer.write('b\n');
    writer.write('c\n');
    const fourth = writer.write('d\n');
    expect(fourth).not.toBe(SENT);
    expect(writes).toEqual(['a\nb\nc\nd\n']);
    let drained = false;
    void fourth.then(() => {
      drained = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(true);
  });

  it("'turn': after a lone line, the next lines of the same loop turn leave together at its end; once the loop has waited, a lone line leaves at the tick's end again", async () => {
    const { stream, writes } = recorder();
    const writer = new JoinedWriter(() => stream, 'turn');
    const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));
    writer.write('a\n');
    await tick();
    expect(writes).toEqual(['a\n']);
    // Still the same loop turn (only ticks ran since): the next line waits for its end.
    writer.write('b\n');
    await tick();
    expect(writes).toEqual(['a\n']);
    writer.write('c\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    // The loop waits for a timer: a lone line leaves at the tick's end.
    await new Promise((resolve) => setTimeout(resolve, 20));
    writer.write('d\n');
    await tick();
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
    // A write of two lines is no lone line: the next one leaves at the tick's end too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    writer.write('e\n');
    writer.write('f\n');
    await tick();
    writer.write('g\n');
    await tick();
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n', 'e\nf\n', 'g\n']);
  });

  it("'turn': a lone line of a later loop turn leaves at its tick's end even when the loop did not wait in between", async () => {
    const { stream, writes } = recorder();
    const writer = new JoinedWriter(() => stream, 'turn');
    const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    writer.write('a\n');
    await tick();
    expect(writes).toEqual(['a\n']);
    // Two immediates: the loop runs a new turn and polls without waiting (one was pending),
    // so its idle time has not moved; the next line is still not of the first line's turn.
    await nextTurn();
    await nextTurn();
    writer.write('b\n');
    await tick();
    expect(writes).toEqual(['a\n', 'b\n']);
  });

  it('while the stream is full, writes resolve only once it has drained', async () => {
    const { stream, writes, drain } = recorder(8);
    const writer = new JoinedWriter(() => stream);
    await writer.write('0123456789\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    let done = false;
    const waiting = writer.write('x\n').then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    drain();
    await waiting;
    expect(done).toBe(true);
  });

  it('close(true) writes what is pending at once; close(false) drops it; waiting writes resolve', async () => {
    const a = recorder();
    const flushing = new JoinedWriter(() => a.stream);
    flushing.write('kept\n');
    flushing.close(true);
    expect(a.writes).toEqual(['kept\n']);

    const b = recorder(4);
    const dropping = new JoinedWriter(() => b.stream);
    await dropping.write('full!\n');
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = dropping.write('lost\n');
    dropping.close(false);
    await waiting;
    await new Promise((resolve) => setImmediate(resolve));
    expect(b.writes).toEqual(['full!\n']);
  });

  it('asks for the sink when the tick ends and writes nothing when it is gone', async () => {
    let asked = 0;
    const writer = new JoinedWriter(() => {
      asked++;
      return undefined;
    });
    expect(writer.write('a\n')).toBe(SENT);
    expect(asked).toBe(0);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(asked).toBe(1);
    writer.close(true);
    expect(asked).toBe(2);
  });
});
