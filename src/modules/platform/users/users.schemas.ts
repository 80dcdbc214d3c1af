import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Email, Nullable, Uuid } from '../../../http/schemas.ts';

export const User = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    active: Type.Boolean(),
    last_seen: Nullable(DateTime),
    organization_id: Uuid,
    role_id: Uuid,
    mfa_enabled: Type.Boolean(),
    created_at: DateTime,
  },
  { $id: 'User', title: 'User' },
);
export type User = Static<typeof User>;

export const InviteUserBody = Type.Object(
  {
    email: Email,
    role_id: Uuid,
    organization_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type InviteUserBody = Static<typeof InviteUserBody>;

export const EditUserBody = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    role_id: Type.Optional(Uuid),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type EditUserBody = Static<typeof EditUserBody>;
