/** git's dates (seconds since the epoch and a `+hhmm` zone, as blame and tag objects give them) as strict ISO 8601. */

/** UTC first; {@link inZone} moves it into its zone. */
export function isoFromSeconds(seconds: string): string {
  return new Date(Number(seconds) * 1000).toISOString().replace(".000Z", "+00:00");
}

/** `2024-05-01T10:00:00+00:00` and `+0200` give `2024-05-01T12:00:00+02:00`. */
export function inZone(isoUtc: string, zone: string): string {
  const match = /^([+-])(\d\d)(\d\d)$/.exec(zone);
  if (!match) return isoUtc;
  const minutes = (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  const local = new Date(Date.parse(isoUtc) + minutes * 60_000).toISOString().slice(0, 19);
  return `${local}${match[1]}${match[2]}:${match[3]}`;
}
