import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

/** The organization's admin, also the user the auth examples sign in. */
export const adminUser = {
  id: ids.admin,
  email: 'ada@northwind.example',
  active: true,
  last_seen: '2026-11-23T09:41:12.318Z',
  organization_id: ids.organization,
  role_id: ids.orgAdminRole,
  mfa_enabled: false,
  created_at: '2026-11-20T15:18:37.502Z',
};

const memberUser = {
  ...adminUser,
  id: ids.member,
  email: 'grace@northwind.example',
  last_seen: '2026-11-22T16:05:44.020Z',
  role_id: ids.orgMemberRole,
  created_at: '2026-11-20T18:26:30.541Z',
};

/** Invited and not yet verified: auth's verifyUser completes the invitation. */
export const invitedUser = {
  ...adminUser,
  id: ids.invited,
  email: 'linus@northwind.example',
  active: false,
  last_seen: null,
  role_id: ids.orgMemberRole,
  created_at: '2026-11-23T05:56:02.843Z',
};

/** The organization's users: the admin, a member and an invited user. */
export const usersExamples: Readonly<Record<string, OperationExample>> = {
  inviteUser: {
    request: { email: 'linus@northwind.example', role_id: ids.orgMemberRole },
    response: invitedUser,
  },
  listUsers: { response: page([adminUser, memberUser]) },
  getUser: { params: { user_id: ids.member }, response: memberUser },
  editUser: {
    params: { user_id: ids.member },
    request: { role_id: ids.orgAdminRole },
    response: { ...memberUser, role_id: ids.orgAdminRole },
  },
};
