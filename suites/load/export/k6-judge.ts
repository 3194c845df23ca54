/**
 * The k6 script's judgement of each answer (k6.ts): what the load phase judges
 * of the answers it samples (suites/load/phase.ts), in plain JavaScript a k6
 * `check()` takes, by name, so a wrong answer under k6 is a failed check and
 * the `checks` threshold fails the test:
 * - a request without the key: 401 with an Error body whose status is 401;
 * - load shedding (429, 503, 504), which thresholds measure: an Error body
 *   whose status repeats the HTTP status, as the Errors section asks of every
 *   error answer (Error bodies: "`status` repeats the HTTP status code");
 * - listPets: 200, an array of Pets, at most the limit (20 when absent), only
 *   the status asked for;
 * - createPet: 201, a Pet with the name, category and status sent;
 * - getPet: 200, the Pet with the id asked for.
 * A Pet: an integer id and categoryId within int64 (read as written: a double
 * would round ids beyond 2^53), a string name, a status among PetStatus or
 * absent (never null). The function uses no k6 module, so the project's tests
 * run it on real answers.
 */
import { PET_STATUSES } from '../../../spec/openapi.js';

/** The lines that open and close the judgement in the script (the tests cut it out between them). */
export const JUDGE_BEGIN = '// judgeAnswer: begin';
export const JUDGE_END = '// judgeAnswer: end';

/** The judgement's lines: `judgeAnswer(op, probe, asked, status, body)` → `{ [check name]: passed }`. */
export function judgeAnswerLines(): string[] {
  return [
    `const PET_STATUSES = ${JSON.stringify(PET_STATUSES)};`,
    '/** Answers the load phase takes as shedding: judged only as Error bodies. */',
    'const SHED = [429, 503, 504];',
    '/**',
    ' * Whether a value written at `"key": …` in the raw text is an integer within int64, each time the key occurs.',
    ' * @param {string} text',
    ' * @param {string} key',
    ' * @returns {boolean}',
    ' */',
    'function int64sAt(text, key) {',
    '  const found = text.matchAll(new RegExp(`"${key}"\\\\s*:\\\\s*(-?)([0-9]+)(?:\\\\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?`, "g"));',
    '  for (const [, sign, whole, fraction = "", exponent = "0"] of found) {',
    '    // Its mathematical value, as JSON Schema counts it: 1e3 and 1.0 are integers, 1.5 is not.',
    '    let digits = `${whole}${fraction}`.replace(/^0+(?=[0-9])/, "");',
    '    const shift = Number(exponent) - fraction.length;',
    '    if (shift < 0) {',
    '      if (!/^0*$/.test(digits.slice(shift))) return false;',
    '      digits = digits.slice(0, shift) || "0";',
    '    } else if (digits !== "0") {',
    '      if (digits.length + shift > 19) return false;',
    '      digits += "0".repeat(shift);',
    '    }',
    '    const limit = sign === "-" ? "9223372036854775808" : "9223372036854775807";',
    '    if (digits.length > 19 || (digits.length === 19 && digits > limit)) return false;',
    '  }',
    '  return true;',
    '}',
    '/**',
    ' * @param {unknown} pet',
    ' * @returns {boolean}',
    ' */',
    'function isPet(pet) {',
    '  if (pet === null || typeof pet !== "object" || Array.isArray(pet)) return false;',
    '  const p = /** @type {Record<string, unknown>} */ (pet);',
    '  return Number.isInteger(p.id) && typeof p.name === "string" && Number.isInteger(p.categoryId) &&',
    '    (!("status" in p) || PET_STATUSES.includes(/** @type {string} */ (p.status)));',
    '}',
    '/**',
    ' * @param {unknown} body',
    ' * @param {number} status',
    ' * @returns {boolean}',
    ' */',
    'function isError(body, status) {',
    '  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;',
    '  const e = /** @type {Record<string, unknown>} */ (body);',
    '  return typeof e.code === "string" && typeof e.message === "string" && e.status === status;',
    '}',
    '/**',
    ' * What the load phase judges of an answer, by check name.',
    ' * @param {string} op listPets, getPet or createPet',
    ' * @param {boolean} probe sent without the key',
    ' * @param {{ limit?: number | null, status?: string | null, id?: string, sent?: string }} asked',
    ' * @param {number} status',
    ' * @param {string} text the body as received',
    ' * @returns {Record<string, boolean>}',
    ' */',
    'function judgeAnswer(op, probe, asked, status, text) {',
    '  /** @type {any} */',
    '  let body;',
    '  try {',
    '    body = JSON.parse(text);',
    '  } catch {',
    '    body = undefined;',
    '  }',
    '  if (probe) return { "without a key: 401 with an Error body": status === 401 && isError(body, 401) };',
    '  if (SHED.includes(status)) return { [`${op}: a ${status} carries an Error body with its status`]: isError(body, status) };',
    '  const ids = int64sAt(text, "id") && int64sAt(text, "categoryId");',
    '  if (op === "listPets") {',
    '    const pets = Array.isArray(body) && body.every(isPet) && ids;',
    '    return {',
    '      "listPets: 200 with an array of Pets": status === 200 && pets,',
    '      "listPets: at most the limit (20 when absent)": pets && body.length <= (asked.limit ?? 20),',
    '      "listPets: only the status asked for": pets && (asked.status == null || body.every((/** @type {any} */ p) => p.status === asked.status)),',
    '    };',
    '  }',
    '  if (op === "createPet") {',
    '    const sent = JSON.parse(asked.sent ?? "{}");',
    '    const pet = isPet(body) && ids;',
    '    return {',
    '      "createPet: 201 with a Pet": status === 201 && pet,',
    '      "createPet: the name, category and status sent": pet && body.name === sent.name && body.categoryId === sent.categoryId && (sent.status === undefined || body.status === sent.status),',
    '    };',
    '  }',
    '  const id = /"id"\\s*:\\s*(-?[0-9]+)/.exec(text);',
    '  return { "getPet: 200 with the Pet asked for": status === 200 && isPet(body) && ids && id !== null && id[1] === asked.id };',
    '}',
  ];
}
