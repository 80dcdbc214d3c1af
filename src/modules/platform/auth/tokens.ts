import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Keyring } from '../../../lib/secrets.ts';

/**
 * Signed JWTs: access tokens (docs/api.md#authentication-and-roles) and the short-lived token
 * between password and TOTP.
 */
export type TokenType = 'access' | 'mfa';

export interface TokenClaims {
  userId: string;
  /** The user's session version when issued; bumping it revokes every older token. */
  sessionVersion: number;
}

const ISSUER = 'token-issuance-service';
export const MFA_TOKEN_TTL_SECONDS = 300;

export async function signToken(
  keyring: Keyring,
  type: TokenType,
  claims: TokenClaims,
  ttlSeconds: number,
): Promise<string> {
  return new SignJWT({ typ: type, ver: claims.sessionVersion })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(keyring.tokenSigningKey);
}

/** Returns the claims and when the token expires (epoch ms), or undefined for a token that is malformed, forged, expired or of another type. */
export async function verifyToken(
  keyring: Keyring,
  type: TokenType,
  token: string,
): Promise<(TokenClaims & { expiresAt: number }) | undefined> {
  try {
    const { payload } = await jwtVerify(token, keyring.tokenSigningKey, {
      issuer: ISSUER,
      algorithms: ['HS256'],
    });
    if (
      payload.typ !== type ||
      typeof payload.sub !== 'string' ||
      typeof payload.ver !== 'number' ||
      typeof payload.exp !== 'number'
    )
      return undefined;
    return { userId: payload.sub, sessionVersion: payload.ver, expiresAt: payload.exp * 1000 };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return undefined;
    throw error;
  }
}
