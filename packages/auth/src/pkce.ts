import { createHash, randomBytes } from 'node:crypto';

const base64url = (b: Buffer) => b.toString('base64url');

/** A PKCE pair (S256) and a `state`. */
export function pkce(): { verifier: string; challenge: string; state: string } {
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash('sha256').update(verifier).digest());
  return { verifier, challenge, state: base64url(randomBytes(24)) };
}
