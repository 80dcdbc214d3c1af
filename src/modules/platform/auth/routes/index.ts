import type { RouteModule } from '../../../../http/types.ts';
import { changePasswordRoute } from './change-password.ts';
import { confirmMfaRoute } from './confirm-mfa.ts';
import { forgotPasswordRoute } from './forgot-password.ts';
import { getMeRoute } from './get-me.ts';
import { loginRoute } from './login.ts';
import { loginMfaRoute } from './login-mfa.ts';
import { resetPasswordRoute } from './reset-password.ts';
import { startMfaRoute } from './start-mfa.ts';
import { verifyUserRoute } from './verify-user.ts';

export const authRoutes: RouteModule[] = [
  loginRoute,
  loginMfaRoute,
  verifyUserRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  changePasswordRoute,
  getMeRoute,
  startMfaRoute,
  confirmMfaRoute,
];
