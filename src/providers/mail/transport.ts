/** One outgoing message, already rendered. */
export interface OutgoingMail {
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
  readonly name: string;
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}
