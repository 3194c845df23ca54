/** Headers every request of the functional phases carries unless the request sets its own; a replay of a transcript recomputes them alike. */
export const DEFAULT_REQUEST_HEADERS: Readonly<Record<string, string>> = { 'user-agent': 'petstore-conformance', accept: 'application/json' };
