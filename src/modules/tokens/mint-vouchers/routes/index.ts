import type { RouteModule } from '../../../../http/types.ts';
import { listPublicMintVouchersRoute } from './list-public-mint-vouchers.ts';

export const mintVoucherRoutes: RouteModule[] = [listPublicMintVouchersRoute];
