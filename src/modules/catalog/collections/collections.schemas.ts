import { type Static, Type } from '@sinclair/typebox';
import { PLATFORM_CONTRACT_NAMES } from '../../../chain/artifacts.ts';
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  REVEAL_STRATEGIES,
  TOKEN_ID_ASSIGNMENT_STRATEGIES,
} from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../../http/schemas.ts';
import { CapabilityName, CustomContractFields, TokenType } from '../contracts/contracts.schemas.ts';

const NetworkId = Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The chain id' });
const CollectionName = Type.String({ minLength: 1, maxLength: 200 });
const ImageUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'Cover image URL' });
const PreviewMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Token metadata (ERC-721/1155 metadata JSON) served for every token while a DELAYED collection has reveal_hidden true',
});

export const RevealStrategy = StringEnum(REVEAL_STRATEGIES, { description: 'INSTANT or DELAYED' });
export const DeploymentStatus = StringEnum(DEPLOYMENT_STATUSES, {
  description: 'PENDING until the deployment settles',
});
const DeploymentType = StringEnum(DEPLOYMENT_TYPES);
export const TokenIdAssignmentStrategy = StringEnum(TOKEN_ID_ASSIGNMENT_STRATEGIES, {
  description:
    'AUTOMATIC: the service numbers tokens from 1; MANUAL: token ids are given at lock; EXTERNAL: the contract assigns them at mint (ERC721 with ADMIN_MINT_MULTIPLE_NO_ID only)',
});

/** ERC-2981 royalty: receiver and basis points (10,000 = 100%). */
export const RoyaltyInfo = Type.Object(
  {
    receiver: { ...EthAddress, description: 'Receives the royalty; not the zero address' },
    amount_bps: Type.Integer({ minimum: 0, maximum: 10_000, description: 'Basis points of the sale price' }),
  },
  { additionalProperties: false, title: 'RoyaltyInfo' },
);
export type RoyaltyInfo = Static<typeof RoyaltyInfo>;

export const PlatformDeployment = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 32, description: "The contract's symbol()" }),
    variant: Type.Union(
      PLATFORM_CONTRACT_NAMES.map((v) => Type.Literal(v)),
      { description: 'The platform contract (contracts/README.md)' },
    ),
    max_supply: Type.Optional({
      ...Uint256,
      default: '0',
      description: 'Tokens (ERC-1155: units) that may ever be minted; 0 = unbounded',
    }),
    owner: Type.Optional(
      Nullable({
        ...EthAddress,
        description:
          "Also receives the contract's DEFAULT_ADMIN_ROLE once deployed (the organization's wallet keeps it too, to mint)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type PlatformDeployment = Static<typeof PlatformDeployment>;

export const CustomDeployment = Type.Object(
  {
    ...CustomContractFields,
    token_type: Type.Optional(
      Nullable({ ...TokenType, description: 'Required when the contract is both ERC721 and ERC1155' }),
    ),
  },
  { additionalProperties: false },
);
export type CustomDeployment = Static<typeof CustomDeployment>;

export const ExternalDeployment = Type.Object(
  {
    address: { ...EthAddress, description: 'The deployed contract' },
    token_type: TokenType,
    abi: Type.Optional(
      Nullable({
        ...CustomContractFields.abi,
        description:
          "The contract's JSON ABI; its functions count only when their selectors are in the deployed bytecode",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExternalDeployment = Static<typeof ExternalDeployment>;

export const DeploymentRequest = Type.Object(
  {
    type: {
      ...DeploymentType,
      description:
        "PLATFORM: one of the service's contracts; CUSTOM: the caller's contract, deployed by the service; EXTERNAL: an already deployed contract",
    },
    network_id: {
      ...NetworkId,
      description: "A registered, enabled network among the organization's network_ids",
    },
    token_id_assignment_strategy: Type.Optional(
      Nullable({ ...TokenIdAssignmentStrategy, description: 'Default AUTOMATIC' }),
    ),
    platform: Type.Optional(Nullable(PlatformDeployment)),
    custom: Type.Optional(Nullable(CustomDeployment)),
    external: Type.Optional(Nullable(ExternalDeployment)),
  },
  {
    additionalProperties: false,
    title: 'DeploymentRequest',
    description: 'Exactly the object named by `type` is given; the other two are absent or null.',
  },
);
export type DeploymentRequest = Static<typeof DeploymentRequest>;

export const Deployment = Type.Object(
  {
    type: DeploymentType,
    status: DeploymentStatus,
    address: Nullable({ ...EthAddress, description: 'EIP-55; null until the deployment has executed' }),
    capabilities: Type.Array(CapabilityName, { description: 'Empty until the deployment has executed' }),
    network_id: Nullable(Type.Integer()),
    symbol: Type.String({ description: 'Empty while unknown (a CUSTOM contract before it is deployed)' }),
    token_id_assignment_strategy: TokenIdAssignmentStrategy,
    token_type: TokenType,
    transaction_id: Nullable({ ...Uuid, description: 'The deployment transaction; null for EXTERNAL' }),
    failure_reason: Nullable(Type.String({ description: 'Why a FAILED deployment failed' })),
  },
  { title: 'Deployment' },
);
export type Deployment = Static<typeof Deployment>;

export const Collection = Type.Object(
  {
    id: Uuid,
    organization_id: Uuid,
    name: Type.String(),
    default_item_type_id: Nullable(Uuid),
    image_url: Nullable(Type.String()),
    reveal_strategy: RevealStrategy,
    preview_metadata: Nullable(PreviewMetadata),
    editable_metadata: Type.Boolean(),
    reveal_hidden: Type.Boolean(),
    functions_enabled: Type.Boolean(),
    royalty_info: Nullable(RoyaltyInfo),
    deployment: Nullable(Deployment),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Collection', title: 'Collection' },
);
export type Collection = Static<typeof Collection>;

export const CreateCollectionBody = Type.Object(
  {
    name: { ...CollectionName, description: 'Unique within the organization' },
    default_item_type_id: Type.Optional(Nullable(Uuid)),
    image_url: Type.Optional(Nullable(ImageUrl)),
    preview_metadata: Type.Optional(
      Nullable({
        ...PreviewMetadata,
        description: 'Required for DELAYED; must be absent or null for INSTANT',
      }),
    ),
    deployment_request: Type.Optional(Nullable(DeploymentRequest)),
    reveal_strategy: Type.Optional({ ...RevealStrategy, default: 'INSTANT' }),
    editable_metadata: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type CreateCollectionBody = Static<typeof CreateCollectionBody>;

/** Partial: only the attributes present change; null clears the nullable ones. */
export const EditCollectionBody = Type.Object(
  {
    default_item_type_id: Type.Optional(Nullable(Uuid)),
    functions_enabled: Type.Optional(Type.Boolean()),
    image_url: Type.Optional(Nullable(ImageUrl)),
    name: Type.Optional(CollectionName),
    preview_metadata: Type.Optional(Nullable(PreviewMetadata)),
    reveal_hidden: Type.Optional(Type.Boolean({ description: 'Only from true to false, DELAYED only' })),
    editable_metadata: Type.Optional(Type.Boolean({ description: 'Only from true to false' })),
    royalty_info: Type.Optional(Nullable(RoyaltyInfo)),
  },
  { additionalProperties: false },
);
export type EditCollectionBody = Static<typeof EditCollectionBody>;

export const CollectionParams = Type.Object({ collection_id: Uuid }, { additionalProperties: false });

export const ListCollectionsQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact name' })),
    contract_address: Type.Optional(EthAddress),
    token_type: Type.Optional(TokenType),
    network_id: Type.Optional(NetworkId),
    order_by: Type.Optional(Type.Literal('NAME', { default: 'NAME' })),
  },
  { additionalProperties: false },
);
export type ListCollectionsQuery = Static<typeof ListCollectionsQuery>;

export const DeploymentRequestStatus = Type.Object(
  {
    status: DeploymentStatus,
    transaction_id: Nullable(Uuid),
    failure_reason: Nullable(Type.String()),
  },
  { title: 'DeploymentRequestStatus' },
);
export type DeploymentRequestStatus = Static<typeof DeploymentRequestStatus>;
