const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO timestamp from the API in the person's locale and time zone. */
export function formatTime(iso: string): string {
  return FORMAT.format(new Date(iso));
}
