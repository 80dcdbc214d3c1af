import type { RouteModule } from '../../../../http/types.ts';
import { listMailboxRoute } from './list-mailbox.ts';

export const mailRoutes: RouteModule[] = [listMailboxRoute];
