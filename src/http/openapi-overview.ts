/**
 * The OpenAPI document's `info.description`: what the service does and a getting-started of a
 * token drop, each step linked to its operation in the /docs UI. Swagger UI's deep links are
 * `#/<first tag>/<operationId>` (spaces as %20); the tag is read from the document, so a step
 * follows its operation when tags change. test/openapi-examples.test.ts checks every link.
 */

type Paths = Record<string, Record<string, { operationId?: string; tags?: string[] }>>;

/** The /docs anchor of an operation, or undefined when the document has no such operation. */
export function operationAnchor(paths: Paths, operationId: string): string | undefined {
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (operation.operationId !== operationId) continue;
      const tag = operation.tags?.[0] ?? 'default';
      return `#/${tag.trim().replace(/\s/g, '%20')}/${operationId}`;
    }
  }
  return undefined;
}

export function overview(paths: Paths): string {
  const link = (operationId: string, text = `\`${operationId}\``) => {
    const anchor = operationAnchor(paths, operationId);
    return anchor ? `[${text}](${anchor})` : text;
  };
  return [
    'Issue digital tokens (NFTs) for an organization: collections on ERC-721/ERC-1155 contracts, a catalog of items',
    'validated by JSON schemas, minting and transfers through the service’s own transaction relayer.',
    '',
    'Conventions: JSON bodies with unknown fields refused; ids are UUIDs (networks: chain ids); Uint256 values',
    '(token ids, supplies, wei) are decimal strings; addresses are EIP-55 checksummed on the way out; timestamps',
    'are ISO 8601 UTC with milliseconds; lists page with `limit` and `cursor`; every POST takes an',
    '`Idempotency-Key`; every error has one body `{"error": {"code", "detail", "request_id", "fields"}}`.',
    'The repository’s `docs/api.md` is the guide to all of it.',
    '',
    '## Getting started: a token drop',
    '',
    `1. **Credentials.** ${link('login')} gives an \`access_token\` (an hour by default); ${link('createApiKey')} gives a`,
    '   long-lived `key` for scripts. Send either as `Authorization: Bearer …` (or a key as `X-Api-Key`);',
    `   ${link('getMe')} shows your organization and permissions.`,
    `2. **Collection and deployment.** ${link('createCollection')} with a \`deployment_request\` (a PLATFORM`,
    '   contract on a network of your organization) queues the deployment; the contract exists once',
    `   ${link('getDeploymentRequest')} answers \`SUCCESS\` (\`FAILED\` carries \`failure_reason\`;`,
    `   ${link('submitDeploymentRequest')} tries again). Poll it every few seconds.`,
    `3. **Items.** Optionally ${link('createItemType')} (a JSON schema items must satisfy), then`,
    `   ${link('createItem')} or ${link('bulkCreateItems')} (up to 10,000 at once); \`attributes.image\` is the`,
    '   token image.',
    `4. **Lock.** ${link('lockItems')} freezes items and gives them token ids and supply; only locked items`,
    '   are minted.',
    `5. **Mint.** ${link('createMintRequests')} answers one mint request per item, \`PENDING\`; poll`,
    `   ${link('getMintRequest')} until \`COMPLETED\` (\`FAILED\` carries \`failure_reason\`; the item is free`,
    `   to mint again). ${link('getTransaction')} shows the on-chain transaction behind it.`,
    `6. **Metadata.** Once minted, ${link('getTokenMetadata')} serves what the contract's \`tokenURI\` points`,
    `   at, and ${link('getContractMetadata')} its \`contractURI\`. Before the mint completes it is a 404.`,
    '',
    `To send an item by mail instead, ${link('createEmailClaim')} holds a locked item for an email address and`,
    'mails it a claim link; its recipient asks for a PIN on the claim page and redeems the item to an address,',
    `which mints or transfers it (${link('getEmailClaim')} follows the claim). Templates and senders of that mail:`,
    `${link('listEmailTemplates')}, ${link('createMarketingCampaign')}, ${link('createEmailIntegration')}.`,
    '',
    `Instead of polling, ${link('createWebhook')} registers an HTTPS endpoint for event types (a deployment,`,
    'a mint or transfer request settling, an email claim claimed…): each event is POSTed as',
    '`{type, timestamp, data}`, `data` the resource as this API returns it, signed per Standard Webhooks',
    '(`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried with backoff, in order per resource;',
    `${link('testWebhook')} sends a test event and ${link('listWebhookDeliveries')} is the delivery log.`,
  ].join('\n');
}

/** Sets the document's `info.description` to the overview. */
export function addOverview<T extends { paths?: unknown; info?: unknown }>(document: T): T {
  const info = (document.info ?? {}) as { description?: string };
  info.description = overview((document.paths ?? {}) as Paths);
  return document;
}
