import type { RouteModule } from '../../../../http/types.ts';
import { listCapabilitiesRoute } from './list-capabilities.ts';
import { verifyCapabilitiesRoute } from './verify-capabilities.ts';

export const contractRoutes: RouteModule[] = [verifyCapabilitiesRoute, listCapabilitiesRoute];
