/** git's dates (seconds since the epoch and a `+hhmm` zone, as blame and tag objects give them) as strict ISO 8601. */

/**
 * `1714557600` in `+0200` gives `2024-05-01T12:00:00+02:00`, as git's `%aI` writes it: computed on whole numbers,
 * as git does, so a year past 9999 has more digits (`10000-01-01T00:00:00+00:00`) and a stamp past what a
 * JavaScript Date holds is still written; the zone is written with its own digits (`+0060` as `+00:60`, as git
 * does), a zero one as `+00:00` (git reads `-0000` as zero), one of other lengths as git reads it (`+10000` is
 * `+100:00`). A zone that is no signed number is taken as UTC. `""` for seconds that are not a whole number Node holds exactly.
 */
export function isoDate(seconds: string, zone: string): string {
  if (!/^\d+$/.test(seconds)) return "";
  const stamp = Number(seconds);
  if (!Number.isSafeInteger(stamp)) return "";
  // git reads the zone as one number (strtol): its hundreds are hours, the rest minutes, whatever the digits.
  const match = /^([+-])(\d{1,9})$/.exec(zone);
  const value = match === null ? 0 : Number(match[2]);
  const hours = Math.floor(value / 100);
  const minutes = value % 100;
  const offsetMinutes = match === null ? 0 : (match[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
  const local = stamp + offsetMinutes * 60;
  const days = Math.floor(local / 86_400);
  const time = local - days * 86_400;
  const { year, month, day } = civilFromDays(days);
  // The zone's own digits, as git prints them (`+0060` is `+00:60`, an hour ahead); zero is `+00:00`.
  const zoneText = match === null || offsetMinutes === 0 ? "+00:00" : `${match[1]}${two(hours)}:${two(minutes)}`;
  const clock = `${two(Math.floor(time / 3600))}:${two(Math.floor(time / 60) % 60)}:${two(time % 60)}`;
  return `${String(year).padStart(4, "0")}-${two(month)}-${two(day)}T${clock}${zoneText}`;
}

const two = (value: number): string => String(value).padStart(2, "0");

/** The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's `civil_from_days`). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
