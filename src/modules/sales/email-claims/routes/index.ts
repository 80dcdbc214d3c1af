import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailClaim } from '../email-claims.schemas.ts';
import { createEmailClaimRoute } from './create-email-claim.ts';
import { getEmailClaimRoute } from './get-email-claim.ts';
import { getPublicEmailClaimRoute } from './get-public-email-claim.ts';
import { listEmailClaimsRoute } from './list-email-claims.ts';
import { redeemEmailClaimRoute } from './redeem-email-claim.ts';
import { resendEmailClaimRoute } from './resend-email-claim.ts';
import { revokeEmailClaimRoute } from './revoke-email-claim.ts';
import { verifyEmailClaimRoute } from './verify-email-claim.ts';

export const emailClaimRoutes: RouteModule[] = [
  listEmailClaimsRoute,
  createEmailClaimRoute,
  getEmailClaimRoute,
  resendEmailClaimRoute,
  revokeEmailClaimRoute,
  getPublicEmailClaimRoute,
  verifyEmailClaimRoute,
  redeemEmailClaimRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const emailClaimSchemas: TSchema[] = [EmailClaim];
