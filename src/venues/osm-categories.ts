/**
 * OSM tag → taxonomy type name. Keys are tried in this order (a node tagged both
 * amenity=restaurant and tourism=hotel is the hotel's restaurant, so amenity goes first, as in
 * the vd/ files). Values not in the table fall back to a broad type per key; all targets are
 * checked against data/taxonomy.json by test/venues-taxonomy.test.ts.
 */
import { typeByName, UNKNOWN, type VenueType } from './taxonomy.js';

export const OSM_KEYS = ['amenity', 'shop', 'tourism', 'leisure', 'office', 'craft', 'healthcare'] as const;

const A = (pairs: string): Record<string, string> =>
  Object.fromEntries(pairs.split(';').map((p) => p.split('=').map((s) => s.trim()) as [string, string]));

export const OSM_TABLE: Record<string, Record<string, string>> = {
  amenity: A(`cafe=Café; restaurant=Restaurant; fast_food=Fast Food Restaurant; bar=Bar; pub=Pub;
    biergarten=Beer Garden; ice_cream=Ice Cream Parlor; food_court=Food Court; nightclub=Night Club;
    bank=Bank; atm=ATM; bureau_de_change=Financial Service; pharmacy=Pharmacy; hospital=Hospital;
    clinic=Healthcare Clinic; doctors=Doctor's Office; dentist=Dentist; veterinary=Veterinarian;
    school=Primary and Secondary School; kindergarten=Preschool; childcare=Daycare;
    university=College and University; college=College and University; language_school=Language School;
    driving_school=Driving School; music_school=Music School; library=Library;
    place_of_worship=Spiritual Center; townhall=Town Hall; courthouse=Courthouse; police=Police Station;
    fire_station=Fire Station; post_office=Post Office; embassy=Embassy or Consulate;
    community_centre=Community Center; social_facility=Social Services Organization; social_centre=Social Club;
    arts_centre=Performing Arts Venue; theatre=Theater; cinema=Movie Theater; casino=Casino;
    marketplace=Market; parking=Parking; parking_entrance=Parking; fuel=Fuel Station; charging_station=Electric Vehicle Charging Station;
    bicycle_rental=Bike Rental; car_rental=Rental Car Location; car_wash=Car Wash and Detail;
    bus_station=Bus Station; ferry_terminal=Boat or Ferry; taxi=Taxi Stand; boat_rental=Boat Rental;
    toilets=Public Bathroom; fountain=Fountain; coworking_space=Coworking Space; internet_cafe=Internet Cafe;
    nursing_home=Nursing Home; prison=Prison; grave_yard=Cemetery; recycling=Recycling Facility;
    events_venue=Event Space; conference_centre=Convention Center; exhibition_centre=Convention Center;
    studio=Recording Studio; animal_shelter=Animal Shelter; shelter=Picnic Shelter; dojo=Martial Arts Dojo;
    research_institute=Research Laboratory; stripclub=Strip Club; fortune_teller=Psychic and Astrologer;
    animal_boarding=Pet Sitting and Boarding Service`),
  shop: A(`supermarket=Supermarket; convenience=Convenience Store; bakery=Bakery; butcher=Butcher;
    greengrocer=Grocery Store; deli=Deli; alcohol=Liquor Store; wine=Wine Store; beverages=Food and Beverage Retail;
    confectionery=Candy Store; chocolate=Chocolate Store; pastry=Dessert Shop; seafood=Meat and Seafood Store;
    coffee=Coffee Roaster; tea=Food and Beverage Retail; cheese=Cheese Store; health_food=Health Food Store;
    clothes=Clothing Store; boutique=Boutique; fashion=Fashion Retail; shoes=Shoe Store; jewelry=Jewelry Store;
    watches=Jewelry Store; bag=Leather Goods Store; leather=Leather Goods Store; tailor=Tailor;
    hairdresser=Hair Salon; beauty=Health and Beauty Service; cosmetics=Cosmetics Store; perfumery=Perfume Store;
    optician=Eyecare Store; chemist=Drugstore; medical_supply=Medical Supply Store; hearing_aids=Medical Supply Store;
    mall=Shopping Mall; department_store=Department Store; variety_store=Discount Store; general=Miscellaneous Store;
    gift=Gift Store; souvenir=Souvenir Store; books=Bookstore; stationery=Stationery Store; newsagent=Newsstand;
    kiosk=Newsstand; tobacco=Tobacco Store; e-cigarette=Vape Store; florist=Flower Store; garden_centre=Garden Center;
    hardware=Hardware Store; doityourself=Hardware Store; furniture=Furniture and Home Store;
    interior_decoration=Furniture and Home Store; houseware=Furniture and Home Store; electronics=Electronics Store;
    computer=Computers and Electronics Retail; mobile_phone=Mobile Phone Store; video_games=Video Games Store;
    music=Record Store; musical_instrument=Music Store; toys=Toy Store; sports=Sporting Goods Retail;
    outdoor=Outdoor Supply Store; bicycle=Bicycle Store; car=Car Dealership; car_repair=Automotive Repair Shop;
    car_parts=Automotive Shop; tyres=Tire Repair Shop; motorcycle=Motorcycle Dealership; pet=Pet Supplies Store;
    art=Art Gallery; antiques=Antique Store; second_hand=Vintage and Thrift Store; charity=Vintage and Thrift Store;
    photo=Photography Service; copyshop=Print Store; laundry=Laundromat; dry_cleaning=Dry Cleaner;
    travel_agency=Travel Agency; ticket=Ticket Seller; estate_agent=Real Estate Agency; funeral_directors=Funeral Home;
    massage=Massage Clinic; tattoo=Tattoo Parlor; nail_salon=Nail Salon; lottery=Lottery Retailer;
    bookmaker=Betting Shop; pawnbroker=Pawn Shop; frame=Framing Store; craft=Arts and Crafts Store;
    fabric=Textiles Store; baby_goods=Baby Store; erotic=Adult Store; cannabis=Cannabis Store;
    wholesale=Warehouse or Wholesale Store; locksmith=Locksmith; storage_rental=Storage Facility;
    telecommunication=Mobile Phone Store; electrical=Electronics Store; appliance=Electronics Store;
    kitchen=Furniture and Home Store; fashion_accessories=Fashion Retail; paint=Hardware Store; tool_hire=Equipment Rental Service;
    shoe_repair=Shoe Repair Service; grocery=Grocery Store; camera=Electronics Store; bed=Furniture and Home Store;
    lighting=Furniture and Home Store; nutrition_supplements=Supplement Store; herbalist=Health Food Store;
    e-bike=Bicycle Store; pet_grooming=Pet Grooming Service; party=Party Supply Store; psychic=Psychic and Astrologer`),
  tourism: A(`hotel=Hotel; hostel=Hostel; motel=Motel; guest_house=Bed and Breakfast; apartment=Vacation Rental;
    chalet=Ski Chalet; camp_site=Campground; caravan_site=RV Park; museum=Museum; gallery=Art Gallery;
    artwork=Public Art; attraction=Attraction; viewpoint=Scenic Lookout; information=Tourist Information and Service;
    theme_park=Amusement Park; zoo=Zoo; aquarium=Aquarium; picnic_site=Picnic Area`),
  leisure: A(`park=Park; garden=Garden; playground=Playground; pitch=Athletic Field; sports_centre=Recreation Center;
    fitness_centre=Gym; stadium=Stadium; swimming_pool=Swimming Pool; golf_course=Golf Course;
    miniature_golf=Mini Golf Course; marina=Harbor or Marina; nature_reserve=Nature Preserve; dog_park=Dog Park;
    water_park=Water Park; ice_rink=Skating Rink; track=Running and Track; bowling_alley=Bowling Alley;
    dance=Dance Studio; sauna=Sauna; beach_resort=Beach; amusement_arcade=Arcade; escape_game=Escape Room;
    horse_riding=Equestrian Facility; fitness_station=Outdoor Gym; sports_hall=Recreation Center;
    common=Park; hackerspace=Coworking Space; resort=Resort; tanning_salon=Tanning Salon`),
  office: A(`company=Office; government=Government Building; lawyer=Law Office; accountant=Accounting and Bookkeeping Service;
    estate_agent=Real Estate Agency; insurance=Insurance Agency; ngo=Non-Profit Organization; association=Organization;
    architect=Architecture Firm; it=Technology Business; telecommunication=Telecommunication Service;
    travel_agent=Travel Agency; employment_agency=Employment Agency; diplomatic=Embassy or Consulate;
    financial=Financial Service; consulting=Management Consultant; advertising_agency=Advertising Agency;
    coworking=Coworking Space; religion=Spiritual Center; educational_institution=Education; newspaper=Publisher;
    bank=Bank; yes=Office; international_organization=Organization; research=Research Laboratory;
    tax_advisor=Accounting and Bookkeeping Service; tutoring=Tutoring Service; financial_advisor=Financial Service`),
  craft: A(`carpenter=Carpenter; plumber=Plumber; electrician=Electrician; photographer=Photographer;
    tailor=Tailor; shoemaker=Shoe Repair Service; jeweller=Jewelry Store; brewery=Brewery; winery=Winery;
    bakery=Bakery; confectionery=Candy Store; gardener=Landscaper and Gardener; locksmith=Locksmith;
    caterer=Food and Beverage Service`),
  healthcare: A(`hospital=Hospital; clinic=Healthcare Clinic; doctor=Doctor's Office; dentist=Dentist;
    pharmacy=Pharmacy; physiotherapist=Physical Therapy Clinic; optometrist=Optometrist; psychotherapist=Psychologist;
    laboratory=Medical Lab; rehabilitation=Rehabilitation Center; alternative=Alternative Medicine Clinic; blood_donation=Blood Bank; midwife=Maternity Clinic`),
};

/** A broad type per key for values the table does not know. */
export const OSM_FALLBACK: Record<string, string> = {
  amenity: 'Community and Government', shop: 'Retail', tourism: 'Travel and Transportation',
  leisure: 'Sports and Recreation', office: 'Office', craft: 'Business and Professional Services',
  healthcare: 'Health and Medicine',
};

const RELIGION: Record<string, string> = {
  christian: 'Church', muslim: 'Mosque', jewish: 'Synagogue', buddhist: 'Buddhist Temple', hindu: 'Hindu Temple',
  sikh: 'Sikh Temple', shinto: 'Shrine',
};

/** Resolves one tag; `exact` is false when the per-key fallback was used. */
export function osmTagType(key: string, value: string, religion?: string): { type: VenueType; exact: boolean } | undefined {
  const table = OSM_TABLE[key];
  if (!table) return undefined;
  const name = (value === 'place_of_worship' && religion && RELIGION[religion]) || table[value];
  const exact = name ? typeByName(name) : undefined;
  if (exact) return { type: exact, exact: true };
  return { type: typeByName(OSM_FALLBACK[key]) ?? UNKNOWN, exact: false };
}

/** The first venue key of a tag set, in OSM_KEYS order, or undefined when the object is no venue. */
export function osmTagsType(tags: Record<string, string>): { key: string; value: string; type: VenueType; exact: boolean } | undefined {
  for (const key of OSM_KEYS) {
    const value = tags[key];
    if (value === undefined || value === 'no' || value === 'vacant') continue;
    const r = osmTagType(key, value, tags.religion);
    if (r) return { key, value, ...r };
  }
  return undefined;
}
