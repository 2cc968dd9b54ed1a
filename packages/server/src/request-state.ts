import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidParams } from './errors.js';

/**
 * Integrity protection for 2026-07-28 `requestState`: the value travels through the
 * client, so it is sealed with an HMAC bound to the method, the target name and an expiry,
 * and anything that fails verification is refused (the spec treats it as attacker input).
 */
export interface RequestStateSealOptions {
  /** HMAC key; a random 32-byte key per server when absent (state then dies with the process). */
  secret?: Uint8Array | string;
  /** How long a sealed state stays valid. */
  ttlMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export const requestStateDefaults = { ttlMs: 10 * 60_000 } as const;

interface Envelope {
  v: unknown;
  m: string;
  n: string;
  e: number;
}

export class RequestStateSeal {
  private readonly key: Buffer;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: RequestStateSealOptions = {}) {
    const secret = options.secret ?? randomBytes(32);
    this.key = Buffer.from(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
    this.ttlMs = options.ttlMs ?? requestStateDefaults.ttlMs;
    this.now = options.now ?? Date.now;
  }

  /** Seals `value` for a retry of `method` on `name` (a tool, prompt or resource URI). */
  seal(value: unknown, method: string, name: string): string {
    const envelope: Envelope = { v: value, m: method, n: name, e: this.now() + this.ttlMs };
    const body = Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The sealed value, or a -32602 error when the state was altered, expired or replayed elsewhere. */
  open(token: unknown, method: string, name: string): unknown {
    if (typeof token !== 'string' || token.length > 1_000_000) {
      throw invalidParams('requestState is not a state this server issued');
    }
    const dot = token.lastIndexOf('.');
    const body = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(body), 'base64url');
    if (dot <= 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      throw invalidParams('requestState failed its integrity check; retry the request without it');
    }
    const envelope = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Envelope;
    if (envelope.m !== method || envelope.n !== name) {
      throw invalidParams(
        `requestState was issued for another request (${envelope.m} ${envelope.n})`,
      );
    }
    if (envelope.e < this.now()) {
      throw invalidParams('requestState has expired; retry the request without it');
    }
    return envelope.v;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
