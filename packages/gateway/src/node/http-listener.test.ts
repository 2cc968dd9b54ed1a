import { once } from 'node:events';
import { connect } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { McpManager } from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { Gateway } from '../gateway.js';
import { boundHostNames, listenHttp, TokenRequiredError } from './http-listener.js';

const TOKEN = 'x'.repeat(32);

async function withGateway(run: (gateway: Gateway) => Promise<void>): Promise<void> {
  await using manager = new McpManager({ servers: [] });
  const gateway = new Gateway({
    manager,
    servers: [],
    info: { name: 'test', version: '0' },
    callTimeoutMs: 1000,
    warn: () => {},
  });
  try {
    await run(gateway);
  } finally {
    await gateway.close();
  }
}

describe('listenHttp', () => {
  it('refuses to bind a non-loopback address without a bearer token (before binding anything)', async () => {
    await withGateway(async (gateway) => {
      await expect(
        listenHttp(gateway, { host: '0.0.0.0', port: 0, token: undefined }),
      ).rejects.toThrow(/needs a bearer token/);
      // auth: 'none' is for loopback only.
      await expect(listenHttp(gateway, { host: '0.0.0.0', port: 0, auth: 'none' })).rejects.toThrow(
        TokenRequiredError,
      );
    });
  });

  it('refuses a loopback bind without a token too, unless told auth: "none" (loopback meant no authentication)', async () => {
    await withGateway(async (gateway) => {
      const error = await listenHttp(gateway, { host: '127.0.0.1', port: 0 }).catch((e) => e);
      expect(TokenRequiredError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'MCPKIT_GATEWAY_TOKEN_REQUIRED', loopback: true });
      await expect(listenHttp(gateway, { port: 0, token: '' })).rejects.toThrow(TokenRequiredError);
      await expect(listenHttp(gateway, { port: 0, token: TOKEN, auth: 'none' })).rejects.toThrow(
        TypeError,
      );
      const open = await listenHttp(gateway, { host: '127.0.0.1', port: 0, auth: 'none' });
      try {
        expect((await fetch(new URL('/healthz', open.url))).status).toBe(200);
      } finally {
        await open.close();
      }
    });
  });

  it('serves /healthz on loopback with a token: 401 without it, states with it', async () => {
    await withGateway(async (gateway) => {
      const face = await listenHttp(gateway, { host: '127.0.0.1', port: 0, token: TOKEN });
      try {
        const health = new URL('/healthz', face.url);
        expect((await fetch(health)).status).toBe(401);
        const ok = await fetch(health, { headers: { Authorization: `Bearer ${TOKEN}` } });
        expect(await ok.json()).toEqual({ status: 'ok', servers: [] });
      } finally {
        await face.close();
      }
    });
  });

  it('matches the Bearer scheme case-insensitively (RFC 7235 §2.1), the token exactly', async () => {
    await withGateway(async (gateway) => {
      const face = await listenHttp(gateway, { port: 0, token: TOKEN });
      try {
        const health = new URL('/healthz', face.url);
        const status = async (authorization: string) =>
          (await fetch(health, { headers: { Authorization: authorization } })).status;
        expect(await status(`bearer ${TOKEN}`)).toBe(200);
        expect(await status(`BEARER ${TOKEN}`)).toBe(200);
        expect(await status(`Bearer  ${TOKEN}`)).toBe(200);
        expect(await status(`Bearer ${TOKEN.toUpperCase()}`)).toBe(401);
        expect(await status(`Basic ${TOKEN}`)).toBe(401);
        expect(await status(`Bearer ${TOKEN} extra`)).toBe(401);
        expect(await status(`Bearer${TOKEN}`)).toBe(401);
      } finally {
        await face.close();
      }
    });
  });

  /** Whether `seen` holds a whole HTTP answer: its head and its body (by length, or chunked). */
  const answered = (seen: string): boolean => {
    const head = seen.indexOf('\r\n\r\n');
    if (head === -1) return false;
    const length = /content-length: (\d+)/i.exec(seen.slice(0, head));
    if (length) return seen.length >= head + 4 + Number(length[1]);
    return seen.endsWith('\r\n0\r\n\r\n');
  };

  /**
   * A kept-alive connection to `port`, opened, and a function that asks `/healthz` on it with
   * an `Authorization` (and a `Host`) header and resolves with the whole answer.
   */
  async function healthzConnection(port: number) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
    });
    await once(socket, 'connect');
    const ask = async (authorization: string, host = `127.0.0.1:${port}`) => {
      seen = '';
      socket.write(
        `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${authorization}\r\n\r\n`,
      );
      while (!answered(seen)) await once(socket, 'data');
      return seen;
    };
    return { socket, ask };
  }

  it('checks every request of a kept-alive connection: a changed token or Host is refused after good ones', async () => {
    await withGateway(async (gateway) => {
      const face = await listenHttp(gateway, { port: 0, token: TOKEN });
      const port = Number(face.url.port);
      const first = await healthzConnection(port);
      try {
        expect(await first.ask(`Bearer ${TOKEN}`)).toMatch(/^HTTP\/1\.1 200/);
        expect(await first.ask(`Bearer ${TOKEN}`)).toMatch(/^HTTP\/1\.1 200/);
        // Another header with the same token, then a Host the listener does not answer to.
        expect(await first.ask(`bearer ${TOKEN}`)).toMatch(/^HTTP\/1\.1 200/);
        expect(await first.ask(`Bearer ${TOKEN}`, 'evil.example')).toMatch(/^HTTP\/1\.1 403/);
      } finally {
        first.socket.destroy();
      }
      // The 403 closed that connection: a new one, good requests, then a token of the same length.
      const second = await healthzConnection(port);
      try {
        expect(await second.ask(`Bearer ${TOKEN}`)).toMatch(/^HTTP\/1\.1 200/);
        expect(await second.ask(`Bearer ${'y'.repeat(TOKEN.length)}`)).toMatch(/^HTTP\/1\.1 401/);
      } finally {
        second.socket.destroy();
        await face.close();
      }
    });
  });

  it('closes a request whose body trickles in after requestTimeoutMs (408), the token notwithstanding', async () => {
    await withGateway(async (gateway) => {
      const face = await listenHttp(gateway, {
        port: 0,
        token: TOKEN,
        requestTimeoutMs: 300,
        headersTimeoutMs: 300,
      });
      const socket = connect(Number(face.url.port), '127.0.0.1');
      socket.on('error', () => {});
      try {
        await once(socket, 'connect');
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${face.url.port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        );
        const trickle = setInterval(() => {
          if (socket.writable) socket.write(' ');
        }, 20);
        let seen = '';
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
        });
        await once(socket, 'close');
        clearInterval(trickle);
        expect(seen).toMatch(/^HTTP\/1\.1 408/);
      } finally {
        socket.destroy();
        await face.close();
      }
    });
  });

  it('maxConnections: a connection over the cap is closed at once; the open one keeps working', async () => {
    await withGateway(async (gateway) => {
      const face = await listenHttp(gateway, { port: 0, token: TOKEN, maxConnections: 1 });
      const port = Number(face.url.port);
      const first = connect(port, '127.0.0.1');
      first.on('error', () => {});
      let second: ReturnType<typeof connect> | undefined;
      try {
        await once(first, 'connect');
        // A request answered on the first proves the server has accepted (and counts) it.
        const ask = async () => {
          let reply = '';
          const got = new Promise<void>((resolve) => {
            const onData = (chunk: Buffer) => {
              reply += chunk.toString();
              if (/\r\n\r\n[\s\S]*\}/.test(reply)) {
                first.off('data', onData);
                resolve();
              }
            };
            first.on('data', onData);
          });
          first.write(
            `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
          );
          await got;
          return reply;
        };
        expect(await ask()).toMatch(/^HTTP\/1\.1 200/);
        second = connect(port, '127.0.0.1');
        second.on('error', () => {});
        await once(second, 'close');
        expect(await ask()).toMatch(/^HTTP\/1\.1 200/);
      } finally {
        first.destroy();
        second?.destroy();
        await face.close();
      }
    });
  });
});

describe('boundHostNames', () => {
  it('loopback names for a loopback bind; the address for a specific one', () => {
    expect(boundHostNames('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(boundHostNames('192.0.2.7')).toContain('192.0.2.7');
    expect(boundHostNames('[fd00::7]')).toContain('[fd00::7]');
  });

  it('for 0.0.0.0 every IPv4 interface address of the machine, for :: every one, and its host name', () => {
    const entries = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
    const shown = (a: string) => (a.includes(':') ? `[${a}]` : a);
    const v4 = entries.filter((e) => e.family === 'IPv4').map((e) => e.address);
    const v6 = entries.filter((e) => e.family === 'IPv6').map((e) => shown(e.address));
    const name = hostname().toLowerCase();
    expect(boundHostNames('0.0.0.0')).toEqual(expect.arrayContaining([...v4, name]));
    // (`[::1]` is among the loopback names, which every bind answers to.)
    for (const address of v6)
      if (address !== '[::1]') expect(boundHostNames('0.0.0.0')).not.toContain(address);
    for (const wildcard of ['::', '[::]'])
      expect(boundHostNames(wildcard)).toEqual(expect.arrayContaining([...v4, ...v6, name]));
  });
});
