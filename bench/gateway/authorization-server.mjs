// A tiny authorization server for the signed-in gateway row (issue #24): RFC 8414 metadata
// and a JWKS on 127.0.0.1, over real HTTP, and access tokens (RS256 JWTs, as most
// authorization servers issue) minted with jose for one resource. The gateway finds the
// keys the way it finds any issuer's: metadata first, then `jwks_uri`.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** Starts the server; `mint` signs a token for `audience` with the claims given. */
export async function startAuthorizationServer() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const requests = { metadata: 0, jwks: 0 };
  const server = createServer((req, res) => {
    const send = (body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/oauth-authorization-server') {
      requests.metadata++;
      return send({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: ['echo:call', 'echo:admin'],
      });
    }
    if (req.url === '/jwks') {
      requests.jwks++;
      return send({ keys: [jwk] });
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${server.address().port}`;
  return {
    issuer,
    requests,
    /** An access token for `audience`, valid for an hour. */
    mint: (audience, claims = {}) =>
      new SignJWT({ scope: 'echo:call', client_id: 'bench-client', groups: ['bench'], ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject('bench-user')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
