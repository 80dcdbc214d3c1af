/** The service's name as people read it: page titles, the OpenAPI document's title. */
export const SERVICE_NAME = 'Token Issuance Service';
