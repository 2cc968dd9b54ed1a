import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawInitialize } from '../support/scaleout.js';
import { composeBackends, configFile } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * The gateway config's `limits` (read at start): behind a load balancer every client comes
 * from the balancer's address, so the per-address caps (100 sessions, 256 connections) are
 * the first limit a team meets (bench/scaleout/load.mjs: 28 of 128 clients refused). The
 * caps are the team's to set: here lowered, so that the test stays small.
 */
let gateway: HttpGateway | undefined;
let config: ReturnType<typeof configFile> | undefined;
afterEach(async () => {
  await gateway?.close();
  config?.cleanup();
  gateway = undefined;
  config = undefined;
});

const initialize = (g: HttpGateway) =>
  rawInitialize(g.url, g.headers).then(async (r) => ({ status: r.status, text: await r.text() }));

describe('gateway config limits', () => {
  it('maxSessionsPerClient: the session over the cap gets 429; the default lets it through', async () => {
    config = configFile({ limits: { maxSessionsPerClient: 2 } });
    gateway = await startHttpGateway(composeBackends(), ['--gateway-config', config.file]);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await initialize(gateway));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]!.text).toContain('this client holds 2 sessions');
    await gateway.close();
    config.cleanup();

    config = configFile({});
    gateway = await startHttpGateway(composeBackends(), ['--gateway-config', config.file]);
    for (let i = 0; i < 3; i++) expect((await initialize(gateway)).status).toBe(200);
  }, 60_000);

  it('maxConnectionsPerAddress: a connection over the cap is closed', async () => {
    config = configFile({ limits: { maxConnectionsPerAddress: 2 } });
    gateway = await startHttpGateway(composeBackends(), ['--gateway-config', config.file]);
    const port = Number(gateway.url.port);
    const sockets = [0, 1, 2].map(() => connect(port, '127.0.0.1'));
    const closed = sockets.map(
      (s) => new Promise<boolean>((resolve) => s.once('close', () => resolve(true))),
    );
    try {
      // The third is closed by the gateway, the first two are still open then.
      expect(await closed[2]).toBe(true);
      expect([sockets[0]!.destroyed, sockets[1]!.destroyed]).toEqual([false, false]);
    } finally {
      for (const s of sockets) s.destroy();
    }
  }, 60_000);

  it('a limit out of range is refused at start with where it is', async () => {
    config = configFile({ limits: { maxSessionsPerClient: 0 } });
    await expect(
      startHttpGateway(composeBackends(), ['--gateway-config', config.file]),
    ).rejects.toThrow(/limits\.maxSessionsPerClient/);
  }, 60_000);
});
