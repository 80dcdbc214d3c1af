import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids } from '../../../http/openapi-story.ts';

const cryptoProvider = {
  configured: true,
  network: 'base',
  webhook_url: `https://tokens.northwind.example/v1/webhooks/crypto-provider/${ids.organization}`,
};

/** Crypto provider: the organization's Coinbase Business payment links. */
export const cryptoProviderExamples: Readonly<Record<string, OperationExample>> = {
  getCryptoProvider: { response: cryptoProvider },
  putCryptoProvider: {
    request: {
      api_key_id:
        'organizations/5b0c4a8e-3f2d-4e1a-9c7b-6d5e4f3a2b1c/apiKeys/0e9d8c7b-6a5f-4e3d-2c1b-0a9f8e7d6c5b',
      api_key_secret:
        '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg…\n-----END PRIVATE KEY-----\n',
      webhook_secret: 'whsec_7f3c9a1e5b2d4f6a8c0e2b4d6f8a1c3e',
      network: 'base',
    },
    response: cryptoProvider,
  },
  // Its success is a 204 without a body: what a member who may not change the organization sees.
  deleteCryptoProvider: {
    errors: {
      403: {
        error: {
          code: 'FORBIDDEN',
          request_id: '01a20d24-9f5b-7a7c-ad4e-6f8a0b2c4d5e',
          detail: 'this operation needs the organizations:write permission',
        },
      },
    },
  },
};
