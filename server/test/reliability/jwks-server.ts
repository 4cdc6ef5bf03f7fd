import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export type SigningKey = {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
};

export async function signingKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export type TokenOptions = {
  sub: string;
  /** The `kid` header: the key's own by default; null leaves it out. */
  kid?: string | null;
  /** Seconds since the epoch. */
  exp?: number;
  nbf?: number;
};

export function signWith(key: SigningKey, options: TokenOptions): Promise<string> {
  const kid = options.kid === undefined ? key.kid : options.kid;
  const jwt = new SignJWT({})
    .setProtectedHeader(kid === null ? { alg: key.alg } : { alg: key.alg, kid })
    .setSubject(options.sub)
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '5m');
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  return jwt.sign(key.privateKey);
}

/**
 * An identity provider's JWKS endpoint, in the test process: what it publishes can change at any
 * time, it counts the fetches, and it can answer 500, or accept the connection and never answer.
 */
export class JwksServer {
  keys: JWK[] = [];
  /**
   * answer: the key set; hang: accept, read the request, never answer; error: 500; stall: the
   * headers of a 200, then a body that never ends.
   */
  mode: 'answer' | 'hang' | 'error' | 'stall' = 'answer';
  fetches = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<JwksServer> {
    let self: JwksServer | undefined;
    const server = createServer((_req, res) => {
      if (!self) return res.destroy();
      self.fetches += 1;
      if (self.mode === 'hang') return; // the request is read, and never answered
      if (self.mode === 'error') {
        res.statusCode = 500;
        return res.end('internal error');
      }
      res.setHeader('content-type', 'application/json');
      if (self.mode === 'stall') return res.write('{"keys":[');
      res.end(JSON.stringify({ keys: self.keys }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    self = new JwksServer(server, `http://127.0.0.1:${port}/.well-known/jwks.json`);
    return self;
  }

  publish(...keys: SigningKey[]): void {
    this.keys = keys.map((key) => key.jwk);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
