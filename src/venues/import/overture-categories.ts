/**
 * Overture place categories → the taxonomy (Foursquare's). Overture's keys are snake_case
 * names ("italian_restaurant"), most of which are Foursquare names once spaced out, so a key
 * resolves by, in order: this alias table (keys whose Foursquare name differs, and Overture's
 * top-level themes of both the `categories` and the newer `taxonomy` hierarchy), its words as
 * a name, its words made singular. All targets are checked against data/taxonomy.json by
 * test/venues-overture.test.ts.
 */
import { typeByName, type VenueType } from '../taxonomy.js';

const A = (pairs: string): Record<string, string> =>
  Object.fromEntries(pairs.split(';').map((p) => p.split('=').map((s) => s.trim()) as [string, string]));

export const OVERTURE_ALIASES: Record<string, string> = A(`
  eat_and_drink=Dining and Drinking; food_and_drink=Dining and Drinking; cafe=Café; coffee_shop=Coffee Shop;
  pizza_restaurant=Pizzeria; burger_restaurant=Burger Joint; sandwich_shop=Sandwich Spot; ice_cream_shop=Ice Cream Parlor;
  breakfast_and_brunch_restaurant=Breakfast Spot; tea_room=Tea Room; steakhouse=Steakhouse; bar_and_grill_restaurant=Restaurant;
  accommodation=Lodging; lodging=Lodging; bed_and_breakfast=Bed and Breakfast; guest_house=Bed and Breakfast;
  active_life=Sports and Recreation; sports_and_recreation=Sports and Recreation; sports_and_recreation_venue=Sports and Recreation;
  gym=Gym; fitness_center=Gym; sports_and_fitness_instruction=Gym and Studio; fitness_trainer=Personal Trainer;
  martial_arts_club=Martial Arts Dojo; dance_school=Dance Studio;
  arts_and_entertainment=Arts and Entertainment; cinema=Movie Theater; movie_theater=Movie Theater; theatre=Theater;
  theaters_and_performance_venues=Performing Arts Venue; performing_arts=Performing Arts Venue; stadium_arena=Stadium;
  dance_club=Night Club; nightlife=Nightlife Spot; topic_concert_venue=Music Venue;
  attractions_and_activities=Landmarks and Outdoors; structure_and_geography=Landmarks and Outdoors;
  landmark_and_historical_building=Historic and Protected Site; historical_landmark=Historic and Protected Site;
  automotive=Automotive Service; gas_station=Fuel Station; car_dealer=Car Dealership; automotive_repair=Automotive Repair Shop;
  auto_repair=Automotive Repair Shop; car_wash=Car Wash and Detail; ev_charging_station=Electric Vehicle Charging Station;
  auto_parts_and_supply_store=Automotive Retail; car_rental_agency=Rental Car Location; parking=Parking;
  beauty_and_spa=Health and Beauty Service; beauty_salon=Health and Beauty Service; barber=Barbershop;
  massage=Massage Clinic; tattoo=Tattoo Parlor; tattoo_and_piercing=Tattoo Parlor;
  business_to_business=Business and Professional Services; professional_services=Business and Professional Services;
  services_and_business=Business and Professional Services; private_establishments_and_corporates=Office; corporate_office=Office;
  home_service=Home Improvement Service; contractor=Home Improvement Service; mass_media=Media Agency;
  real_estate=Real Estate Service; real_estate_agent=Real Estate Service; lawyer=Legal Service; attorney=Legal Service;
  accountant=Accounting and Bookkeeping Service; insurance_agency=Insurance Agency; financial_service=Financial Service;
  bank_credit_union=Bank; atms=ATM; dry_cleaning=Dry Cleaner; laundry_services=Laundry Service;
  education=Education; school=Primary and Secondary School; college_university=College and University;
  health_and_medical=Health and Medicine; health_care=Health and Medicine; doctor=Doctor's Office;
  urgent_care_clinic=Urgent Care Center; physical_therapy=Physical Therapy Clinic; medical_center=Medical Center;
  pets=Pet Service; pet_services=Pet Service; pet_store=Pet Supplies Store;
  public_service_and_government=Community and Government; community_and_government=Community and Government;
  police_department=Police Station; fire_department=Fire Station; embassy=Embassy or Consulate;
  community_services_non_profits=Community Center; religious_organization=Spiritual Center; church_cathedral=Church;
  retail=Retail; shopping=Retail; shopping_center=Shopping Mall; electronics=Electronics Store; furniture_store=Furniture and Home Store;
  florist=Flower Store; book_store=Bookstore; mobile_phone_store=Mobile Phone Store; drugstore=Drugstore;
  travel=Travel and Transportation; travel_and_transportation=Travel and Transportation; train_station=Rail Station;
  metro_station=Metro Station; travel_agents=Travel Agency; hotel=Hotel; motel=Motel; hostel=Hostel; resort=Resort`);

const words = (key: string): string => key.replace(/_/g, ' ');

/** The taxonomy type a single Overture key names, when it names one (no broad guess). */
export function overtureKeyType(key: string): VenueType | undefined {
  const alias = OVERTURE_ALIASES[key];
  if (alias) return typeByName(alias);
  const name = words(key);
  return typeByName(name) ?? (name.endsWith('s') ? typeByName(name.replace(/(ies|s)$/, (m) => (m === 'ies' ? 'y' : ''))) : undefined);
}

// A key nothing names still says something by its last word: the broad type it falls back to.
const SUFFIXES: Array<[RegExp, string]> = [
  [/_restaurant$/, 'Restaurant'], [/_(bar|pub)$/, 'Bar'], [/_(cafe|coffee)$/, 'Café'], [/_(store|shop|retail)$/, 'Retail'],
  [/_(school|academy|college)$/, 'Education'], [/_(clinic|doctor|physician|specialist)$/, 'Healthcare Clinic'],
  [/_(church|temple|mosque)$/, 'Spiritual Center'], [/_(hotel|lodging)$/, 'Lodging'], [/_(station|stop|terminal)$/, 'Transport Hub'],
  [/_(service|services|agency|company|consultant)$/, 'Business and Professional Services'],
];

export interface OvertureHit { type: VenueType; exact: boolean }

/**
 * `primary` first (exact when it resolves), then broader clues in the order given (the taxonomy
 * hierarchy from specific to general, the basic category, alternates), then the primary's
 * last word. A hit through anything but the primary is not exact.
 */
export function overtureType(primary: string | undefined, broader: string[]): OvertureHit | undefined {
  if (primary) { const t = overtureKeyType(primary); if (t) return { type: t, exact: true }; }
  for (const key of broader) { const t = overtureKeyType(key); if (t) return { type: t, exact: false }; }
  if (primary) for (const [re, name] of SUFFIXES) if (re.test(primary)) return { type: typeByName(name)!, exact: false };
  return undefined;
}
