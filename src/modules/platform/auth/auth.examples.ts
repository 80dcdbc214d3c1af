import type { OperationExample } from '../../../http/openapi-examples.ts';
import { organization } from '../organizations/organizations.examples.ts';
import { PERMISSIONS_OF_ORG_ADMIN } from '../roles/roles.examples.ts';
import { adminUser, invitedUser } from '../users/users.examples.ts';

const session = {
  access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMWExZjk4OSJ9.q8J1',
  user: adminUser,
};

/** Signing in (with MFA), passwords and the caller's own account. */
export const authExamples: Readonly<Record<string, OperationExample>> = {
  login: {
    request: { email: 'ada@northwind.example', password: 'correct horse battery staple' },
    response: session,
  },
  loginMfa: {
    request: { mfa_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJtZmEiOnRydWV9.Xr4o', code: '492039' },
    response: session,
  },
  verifyUser: {
    request: {
      email: 'linus@northwind.example',
      password: 'a long and private passphrase',
      token: 'Qm9vdHN0cmFwLXZlcmlmeS10b2tlbi0xMjM0NTY3ODkw',
    },
    response: { ...session, user: { ...invitedUser, active: true } },
  },
  forgotPassword: { request: { email: 'ada@northwind.example' } },
  resetPassword: {
    request: { password: 'a new long passphrase', token: 'UmVzZXQtdG9rZW4tZnJvbS10aGUtbWFpbC0xMjM0NTY' },
    response: session,
  },
  changePassword: {
    request: { old_password: 'correct horse battery staple', new_password: 'a new long passphrase' },
    response: session,
  },
  getMe: { response: { organization, permissions: PERMISSIONS_OF_ORG_ADMIN, user: adminUser } },
  startMfaEnrollment: {
    response: {
      secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      otpauth_url:
        'otpauth://totp/Token%20Issuance%20Service:ada%40northwind.example?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Token%20Issuance%20Service',
    },
  },
  confirmMfa: {
    request: { code: '492039' },
    response: { ...session, user: { ...adminUser, mfa_enabled: true } },
  },
};
