import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CreateItemTypeBody, ItemType } from '../item-types.schemas.ts';
import { createItemType, toItemType } from '../item-types.service.ts';

export const createItemTypeRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/item-types',
    {
      config: { access: needs('item_types:write') },
      schema: {
        operationId: 'createItemType',
        tags: ['Item types'],
        summary: 'Create an item type: a JSON Schema that the attributes of its items must pass',
        description:
          'json_schema must pass the meta schema of GET /v1/item-types/meta-schema (draft 2020-12, or draft-07 when its $schema says so; "type": "object" at the root) and compile; unknown formats are refused. Problems are 400 VALIDATION_FAILED with fields under /json_schema. organization_id (default the caller\'s organization) may name another organization for platform admins only (403 otherwise).',
        body: CreateItemTypeBody,
        response: { 201: Type.Ref(ItemType) },
      },
    },
    async (request, reply) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => createItemType(tx, principalOf(request), request.body));
      return reply.code(201).send(toItemType(row));
    },
  );
