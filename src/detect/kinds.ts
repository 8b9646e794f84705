/**
 * Kinds of place: a coarse grouping of categories by how people use them (how long they stay,
 * at what hours, how large the place is). The ranking's dwell and time-of-week priors and the
 * default footprint are per kind, because thousands of fine categories have too little data each.
 */
import type { Venue } from './venue.js';

export const KINDS = ['home', 'lodging', 'work', 'school', 'quick', 'night', 'meal', 'active', 'airport',
  'transit', 'outdoor', 'shop', 'culture', 'medical', 'other'] as const;
export type Kind = (typeof KINDS)[number];
export const KIND_COUNT = KINDS.length;

// First match wins; the order puts specific words before generic ones ("coffee shop" is quick, not shop).
const RULES: Array<[RegExp, Kind]> = [
  [/home|residen|apartment|condo|housing|dormitor/, 'home'],
  [/hotel|hostel|motel|bed & breakfast|guest_?house|lodging/, 'lodging'],
  [/coffee|café|cafe|tea room|tea house|bakery|donut|juice|dessert|ice cream|cupcake|bagel|snack/, 'quick'],
  [/\bbar\b|\bpub\b|nightlife|nightclub|lounge|brewery|beer|wine|cocktail|speakeasy|karaoke|biergarten/, 'night'],
  [/office|building|coworking|professional|startup|conference|factory|government|city hall|courthouse|embassy|business/, 'work'],
  [/college|university|school|academic|library|classroom|student|kindergarten|education/, 'school'],
  [/airport|aerodrome/, 'airport'],
  [/subway|train|station|\bbus\b|ferry|metro|platform|transport|taxi|\brail|terminal|parking/, 'transit'],
  [/restaurant|food|pizza|burger|diner|sushi|steak|taco|sandwich|deli|bistro|bbq|noodle|ramen|buffet|grill|breakfast|wings|chicken|salad|hot dog|dining/, 'meal'],
  [/gym|fitness|yoga|sport|pool|stadium|athletic|martial|climbing|bowling|tennis|golf|recreation/, 'active'],
  [/park|outdoor|plaza|beach|garden|playground|neighborhood|road|bridge|river|lake|trail|scenic|field|harbou?r|pier|square|street|viewpoint|landmark/, 'outdoor'],
  [/mall|market|store|shop|grocery|supermarket|pharmacy|boutique|bookstore|electronics|clothing|hardware|salon|barber|spa\b|laundry|dry_cleaning|bank|post office|convenience|bodega|liquor|car wash|gas station|fuel|retail|butcher/, 'shop'],
  [/museum|theater|theatre|movie|cinema|gallery|concert|music venue|arts|performing|comedy|zoo|aquarium|church|temple|mosque|synagogue|spiritual|place_of_worship|casino|entertainment/, 'culture'],
  [/hospital|medical|doctor|dentist|clinic|emergency|veterinar|health|pharmacy/, 'medical'],
];

export function kindOfText(text: string): number {
  const c = text.toLowerCase();
  for (const [re, kind] of RULES) if (re.test(c)) return KINDS.indexOf(kind);
  return KINDS.indexOf('other');
}

// Venue records are shared and immutable; the kind is derived once per distinct category text,
// and remembered per record object (no key string built on the hot path).
const cache = new Map<string, number>();
const byRecord = new WeakMap<Venue, number>();
export function kindOf(v: Venue): number {
  const known = byRecord.get(v);
  if (known !== undefined) return known;
  const k = kindOfCategory(v);
  byRecord.set(v, k);
  return k;
}

function kindOfCategory(v: Venue): number {
  const key = `${v.sub_category}\u0000${v.type}\u0000${v.category}`;
  let k = cache.get(key);
  if (k === undefined) {
    // The most specific name decides; the level-1 name only when it says nothing.
    k = kindOfText(v.sub_category || v.type || '');
    if (k === KINDS.indexOf('other')) k = kindOfText(`${v.type ?? ''} ${v.category ?? ''}`);
    if (cache.size > 50_000) cache.clear();
    cache.set(key, k);
  }
  return k;
}

/** Typical footprint radius in metres, when a store knows nothing better. */
export const KIND_RADIUS: Record<Kind, number> = {
  home: 15, lodging: 30, work: 30, school: 40, quick: 8, night: 12, meal: 12, active: 25, airport: 300,
  transit: 40, outdoor: 60, shop: 15, culture: 40, medical: 30, other: 15,
};
