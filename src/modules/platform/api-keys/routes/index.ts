import type { RouteModule } from '../../../../http/types.ts';
import { createApiKeyRoute } from './create-api-key.ts';
import { listApiKeysRoute } from './list-api-keys.ts';
import { revokeApiKeyRoute } from './revoke-api-key.ts';

export const apiKeyRoutes: RouteModule[] = [listApiKeysRoute, createApiKeyRoute, revokeApiKeyRoute];
