import { Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../../http/pagination.ts';
import { Uuid } from '../../../http/schemas.ts';

export const Role = Type.Object(
  { id: Uuid, name: Type.String(), description: Type.String(), permissions: Type.Array(Type.String()) },
  { title: 'Role' },
);
export const ListRolesQuery = Type.Object(listQueryProperties('standard'), { additionalProperties: false });
