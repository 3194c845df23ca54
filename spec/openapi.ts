/**
 * The Animal Store Service interface as an OpenAPI 3.1 document: the single
 * source of the schemas the suite validates against. `npm run gen` writes it to
 * spec/openapi.json; a test keeps the two equal.
 *
 * Where the interface document says "not shown", this document says nothing
 * either: no maxLength, no additionalProperties, no default status, no
 * `/store/orders` payloads.
 */

/** The interface version the suite checks against (Versioning, item 1). */
export const INTERFACE_VERSION = '1.0.0';

/** PetStatus values, exactly (Resources and their fields › PetStatus). */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** Sunset of getPet (Versioning, item 2): 5 December 2030, as an HTTP-date and as Unix seconds. */
export const GET_PET_SUNSET = { httpDate: 'Thu, 05 Dec 2030 00:00:00 GMT', unixSeconds: 1922659200 } as const;

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const unauthorized = errorResponse('Error (missing or invalid API key)');

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Animal Store Service',
    version: INTERFACE_VERSION,
    description: 'Listing animals, adding an animal and reading one animal. Data is exchanged as JSON over HTTP.',
  },
  servers: [
    { url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:8080/v1', description: 'Ends in the version segment /v1' } } },
  ],
  tags: [{ name: 'animals' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        tags: ['animals'],
        summary: 'Returns a paginated list of animals',
        security: [{ bearerAuth: [] }],
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Maximum number of animals to return',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          },
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Filters by availability status',
            schema: { $ref: '#/components/schemas/PetStatus' },
          },
        ],
        responses: {
          '200': {
            description: 'JSON array of Pet (Pets)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pets' } } },
          },
          '401': unauthorized,
        },
      },
      post: {
        operationId: 'createPet',
        tags: ['animals'],
        summary: 'Adds a new animal',
        security: [{ bearerAuth: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
        responses: {
          '201': {
            description: 'Pet (the created animal, including the assigned id)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '400': errorResponse('Error (body missing required fields or containing invalid values)'),
          '401': unauthorized,
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        tags: ['animals'],
        summary: 'Returns one animal',
        deprecated: true,
        description: `Deprecated; to be removed on 5 December 2030 (${GET_PET_SUNSET.httpDate}). Replacement: GET /pets with the status filter.`,
        security: [{ bearerAuth: [] }],
        parameters: [
          {
            name: 'petId',
            in: 'path',
            required: true,
            description: 'Identifier of the animal to retrieve',
            schema: { type: 'integer', format: 'int64' },
          },
        ],
        responses: {
          '200': { description: 'Pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          '401': unauthorized,
          '404': errorResponse('Error (the requested resource could not be found)'),
        },
      },
    },
    '/store/orders': {
      get: {
        operationId: 'listStoreOrders',
        summary: 'Store-orders listing; its parameters, payloads and responses are not shown',
        security: [{ bearerAuth: [] }],
        responses: { '401': unauthorized },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
    },
    schemas: {
      PetStatus: { type: 'string', enum: [...PET_STATUSES], description: 'Availability status' },
      NewPet: {
        type: 'object',
        required: ['name', 'categoryId'],
        properties: {
          name: { type: 'string', description: "The animal's name" },
          categoryId: { type: 'integer', format: 'int64', description: 'Identifier of the category the animal belongs to' },
          status: { $ref: '#/components/schemas/PetStatus' },
        },
      },
      Pet: {
        type: 'object',
        required: ['id', 'name', 'categoryId'],
        properties: {
          id: { type: 'integer', format: 'int64', description: 'Unique identifier assigned by the service on creation' },
          name: { type: 'string', description: "The animal's name" },
          categoryId: { type: 'integer', format: 'int64', description: 'Identifier of the category the animal belongs to' },
          status: { $ref: '#/components/schemas/PetStatus' },
        },
      },
      Pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
      Error: {
        type: 'object',
        required: ['code', 'message', 'status'],
        properties: {
          code: { type: 'string', description: 'Machine-readable error code' },
          message: { type: 'string', description: 'Human-readable description' },
          status: { type: 'integer', description: 'The HTTP status code of the response' },
        },
      },
    },
  },
} as const;

/** Names of the schemas under components.schemas. */
export type SchemaName = keyof typeof openapi.components.schemas;
