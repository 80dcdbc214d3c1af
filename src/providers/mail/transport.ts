/** One outgoing message, already rendered. */
export interface OutgoingMail {
  /** The outbox row's id: the message's identity across retries. */
  readonly id: string;
  /** `addr` or `Name <addr>` (see address.ts). */
  readonly from: string;
  readonly replyTo?: string | undefined;
  readonly to: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  /** Stable id of the message, sent as Message-ID so a retried delivery can be recognised. */
  readonly messageId: string;
}

/** Where rendered mail goes: SMTP, a mail API, or the local mailbox. */
export interface MailTransport {
  /** Recorded on the outbox row that it delivered (`transport`). */
  readonly name: string;
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

/**
 * A send that failed, with the provider's reason. `permanent`: the provider refused this message
 * for good (an API's 4xx other than 429, an SMTP 5xx reply), so sending it again cannot help;
 * anything else (network, timeouts, 5xx, 429, SMTP 4xx) is worth retrying.
 */
export class MailSendError extends Error {
  readonly permanent: boolean;
  constructor(message: string, options: { permanent: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'MailSendError';
    this.permanent = options.permanent;
  }
}

export function isPermanentMailFailure(error: unknown): boolean {
  return error instanceof MailSendError && error.permanent;
}

/** The transport, sender and reply address of an organization's mail, and the integration behind them. */
export interface MailRoute {
  readonly transport: MailTransport;
  readonly from: string;
  readonly replyTo: string | undefined;
  /** The organization's email integration; null: the platform default. */
  readonly integrationId: string | null;
}

/** An email integration as the transports need it: the secret already decrypted. */
export interface IntegrationSettings {
  readonly id: string;
  readonly provider: 'API_MAIL_PROVIDER' | 'CLOUD_MAIL_PROVIDER' | 'CUSTOM_SMTP';
  readonly config: Readonly<Record<string, unknown>>;
  readonly secret: string | null;
}

/**
 * Which transport and sender an organization's mail goes through: its ACTIVE email integration,
 * else the platform's (SMTP_URL, else the local mailbox).
 */
export interface MailTransports {
  forOrganization(organizationId: string | null): Promise<MailRoute>;
  /** A route through one integration whatever its state (the integration's test send); the caller closes it. */
  forIntegration(integration: IntegrationSettings): MailRoute;
  close(): Promise<void>;
}
