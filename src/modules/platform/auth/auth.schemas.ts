import { type Static, Type } from '@sinclair/typebox';
import { Email, Password } from '../../../http/schemas.ts';
import { Organization } from '../organizations/organizations.schemas.ts';
import { User } from '../users/users.schemas.ts';

export const LoginBody = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const Session = Type.Object(
  { access_token: Type.String(), user: Type.Ref(User) },
  { $id: 'Session', title: 'Session' },
);
export type Session = Static<typeof Session>;

export const MfaChallenge = Type.Object(
  { mfa_required: Type.Literal(true), mfa_token: Type.String() },
  {
    $id: 'MfaChallenge',
    title: 'MfaChallenge',
    description: 'The user has MFA: finish at POST /v1/auth/login/mfa',
  },
);
export type MfaChallenge = Static<typeof MfaChallenge>;

export const LoginResult = Type.Union([Type.Ref(Session), Type.Ref(MfaChallenge)]);

export const TotpCode = Type.String({ pattern: '^[0-9]{6}$' });

export const LoginMfaBody = Type.Object(
  { mfa_token: Type.String({ minLength: 1, maxLength: 4096 }), code: TotpCode },
  { additionalProperties: false },
);
export type LoginMfaBody = Static<typeof LoginMfaBody>;

export const VerifyUserBody = Type.Object(
  { email: Email, password: Password, token: Type.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false },
);
export type VerifyUserBody = Static<typeof VerifyUserBody>;

export const ForgotPasswordBody = Type.Object({ email: Email }, { additionalProperties: false });
export type ForgotPasswordBody = Static<typeof ForgotPasswordBody>;

export const ResetPasswordBody = Type.Object(
  { password: Password, token: Type.String({ minLength: 1, maxLength: 512 }) },
  { additionalProperties: false },
);
export type ResetPasswordBody = Static<typeof ResetPasswordBody>;

export const ChangePasswordBody = Type.Object(
  { old_password: Type.String({ minLength: 1, maxLength: 256 }), new_password: Password },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const Me = Type.Object(
  { organization: Type.Ref(Organization), permissions: Type.Array(Type.String()), user: Type.Ref(User) },
  { title: 'CurrentContext' },
);
export type Me = Static<typeof Me>;

export const MfaEnrollment = Type.Object(
  { secret: Type.String(), otpauth_url: Type.String() },
  { title: 'MfaEnrollment' },
);

export const ConfirmMfaBody = Type.Object({ code: TotpCode }, { additionalProperties: false });
export type ConfirmMfaBody = Static<typeof ConfirmMfaBody>;
