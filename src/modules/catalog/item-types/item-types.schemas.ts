import { type Static, Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Nullable, Uuid } from '../../../http/schemas.ts';

const JsonSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'A JSON Schema with "type": "object" at its root: draft 2020-12, or draft-07 when its $schema says so (GET /v1/item-types/meta-schema)',
  },
);
const ItemTypeName = Type.String({ minLength: 1, maxLength: 200 });

export const ItemType = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    json_schema: JsonSchema,
    organization_id: Uuid,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'ItemType', title: 'ItemType' },
);
export type ItemType = Static<typeof ItemType>;

export const ListItemTypesQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    organization_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);

export const CreateItemTypeBody = Type.Object(
  {
    json_schema: JsonSchema,
    name: ItemTypeName,
    organization_id: Type.Optional(
      Nullable({ ...Uuid, description: "Platform admins only; default the caller's organization" }),
    ),
  },
  { additionalProperties: false },
);
export type CreateItemTypeBody = Static<typeof CreateItemTypeBody>;

export const EditItemTypeBody = Type.Object(
  { json_schema: JsonSchema, name: ItemTypeName },
  { additionalProperties: false },
);
export type EditItemTypeBody = Static<typeof EditItemTypeBody>;

export const ItemTypeParams = Type.Object({ item_type_id: Uuid }, { additionalProperties: false });

export const ItemTypeMetaSchema = Type.Object(
  {
    example_json_schema: Type.Object({}, { additionalProperties: true }),
    meta_json_schema: Type.Object({}, { additionalProperties: true }),
  },
  { title: 'ItemTypeMetaSchema' },
);
