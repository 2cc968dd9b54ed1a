import { describe, expect, it } from 'vitest';
import { waitFor } from './cli-harness.js';

describe('the CLI test harness', () => {
  it('waitFor returns an exit status of 0 at once instead of taking it for "not yet"', async () => {
    // The old check was truthiness: 0 was skipped and the next answer (here 7) came back,
    // so a test waiting for a clean exit waited until the test timed out.
    const answers = [undefined, 0, 7];
    let calls = 0;
    const status = await waitFor(() => answers[Math.min(calls++, answers.length - 1)], 'a status');
    expect(status).toBe(0);
    expect(calls).toBe(2);
  });

  it('waitFor keeps looking through undefined, null and false', async () => {
    const answers = [undefined, null, false, ''];
    let calls = 0;
    expect(await waitFor(() => answers[calls++], 'a string')).toBe('');
    expect(calls).toBe(4);
  });
});
