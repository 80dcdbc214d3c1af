/** One outgoing message, already rendered. */
export interface OutgoingMail {
  /** The outbox row's id: the message's identity across retries. */
  readonly id: string;
  readonly from: string;
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
 * Which transport and sender an organization's mail goes through. Today every organization uses
 * the platform's; per-organization email integrations will be resolved here.
 */
export interface MailTransports {
  forOrganization(organizationId: string | null): Promise<{ transport: MailTransport; from: string }>;
  close(): Promise<void>;
}
