import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MetadataDocument } from '../metadata.service.ts';

/**
 * Sends a metadata document as JSON text with its cache headers; a request that already holds
 * this version (If-None-Match) gets 304 without a body, which indexers re-crawling use.
 */
export function sendDocument(request: FastifyRequest, reply: FastifyReply, doc: MetadataDocument) {
  reply.header('cache-control', doc.cacheControl).header('etag', doc.etag);
  const held = request.headers['if-none-match'];
  if (held?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === doc.etag)) {
    return reply.code(304).send();
  }
  return reply.code(200).type('application/json; charset=utf-8').send(doc.json);
}
