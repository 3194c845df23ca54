/** HTTP-dates (RFC 9110 §5.6.7), as Sunset and Retry-After carry them. */

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients accept (RFC 9110 §5.6.7). */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} \\d{2}:\\d{2}:\\d{2} GMT|${DAY} ${MONTH} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} \\d{4})$`,
);

/** Milliseconds of an HTTP-date (RFC 9110 §5.6.7), or NaN when the text is not one (an ISO 8601 date is not). */
export function httpDate(text: string): number {
  const trimmed = text.trim();
  if (!HTTP_DATE.test(trimmed)) return Number.NaN;
  // asctime has no zone: it is GMT.
  return Date.parse(/GMT$/.test(trimmed) ? trimmed : `${trimmed} GMT`);
}
