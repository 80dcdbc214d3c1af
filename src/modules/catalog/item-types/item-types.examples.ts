import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

const itemTypeSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['name', 'image'],
  properties: {
    name: { type: 'string', maxLength: 100 },
    description: { type: 'string' },
    image: { type: 'string', format: 'uri' },
    edition: { type: 'integer', minimum: 1 },
  },
};

const itemType = {
  id: ids.itemType,
  name: 'Artwork',
  json_schema: itemTypeSchema,
  organization_id: ids.organization,
  created_at: '2026-11-21T06:52:51.149Z',
  updated_at: '2026-11-21T06:52:51.149Z',
};

/** The item type of the collection's items, and its JSON schema. */
export const itemTypesExamples: Readonly<Record<string, OperationExample>> = {
  listItemTypes: { response: page([itemType]) },
  createItemType: { request: { name: 'Artwork', json_schema: itemTypeSchema }, response: itemType },
  getItemTypeMetaSchema: {
    response: {
      example_json_schema: itemTypeSchema,
      meta_json_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
    },
  },
  getItemType: { params: { item_type_id: ids.itemType }, response: itemType },
  editItemType: {
    params: { item_type_id: ids.itemType },
    request: { name: 'Artwork', json_schema: { ...itemTypeSchema, required: ['name'] } },
    response: {
      ...itemType,
      json_schema: { ...itemTypeSchema, required: ['name'] },
      updated_at: '2026-11-21T08:12:30.004Z',
    },
  },
};
