/**
 * An example of one operation of the OpenAPI document. Each module's `<group>.examples.ts` gives
 * those of its operations, keyed by operationId, and src/wiring/examples.ts merges them; the story
 * they tell and how to add one: openapi-story.ts.
 */
export interface OperationExample {
  /** Path parameters by name: each becomes its parameter's `example`. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** The JSON request body. */
  readonly request?: unknown;
  /** The body of the success response. */
  readonly response?: unknown;
  /**
   * Error answers worth showing, by status (each an error body): what an operation whose success
   * has no body (a 204) shows of itself, so that no operation of the document goes without one.
   */
  readonly errors?: Readonly<Record<number, unknown>>;
}

interface DocumentOperation {
  operationId?: string;
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

/**
 * Puts each operation's example into the document: path parameter `example`s, the JSON request
 * body's, the success response's and the error answers given. Operations without an entry are left as they are (the
 * examples test names them).
 */
export function addExamples<T extends { paths?: unknown }>(
  document: T,
  examples: Readonly<Record<string, OperationExample>>,
): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, DocumentOperation>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const example = operation.operationId ? examples[operation.operationId] : undefined;
      if (!example) continue;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && example.params && parameter.name in example.params) {
          parameter.example = example.params[parameter.name];
        }
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && example.request !== undefined) body.example = example.request;
      const success = Object.entries(operation.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
      const content = success?.[1].content?.['application/json'];
      if (content && example.response !== undefined) content.example = example.response;
      for (const [status, error] of Object.entries(example.errors ?? {})) {
        const answer = operation.responses?.[status]?.content?.['application/json'];
        if (answer) answer.example = error;
      }
    }
  }
  return document;
}
