import { type Static, Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Nullable, Uuid } from '../../../http/schemas.ts';

const apiKeyProperties = {
  id: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  expiration: Nullable(DateTime),
  last_used: Nullable(DateTime),
  permissions: Type.Array(Type.String()),
  created_at: DateTime,
};

export const ApiKey = Type.Object(apiKeyProperties, { $id: 'ApiKey', title: 'ApiKey' });
export type ApiKey = Static<typeof ApiKey>;

export const CreatedApiKey = Type.Object(
  {
    ...apiKeyProperties,
    key: Nullable(Type.String({ description: 'The key itself: shown once, never again' })),
  },
  { title: 'CreatedApiKey' },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), expiration: Type.Optional(Nullable(DateTime)) },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ListApiKeysQuery = Type.Object(listQueryProperties('standard'), { additionalProperties: false });
export const ApiKeyParams = Type.Object({ api_key_id: Uuid }, { additionalProperties: false });
