/**
 * Default footprint radius (metres) for a category path, most specific rule first. Used only
 * when a source has no geometry (OSM nodes, jsonl, TSMC); numbers are typical half-widths of
 * the building or ground the venue occupies, not precise.
 */
const BY_NAME: Record<string, number> = {
  'Airport': 1500, 'Airport Terminal': 150, 'Theme Park': 400, 'Zoo': 300, 'Stadium': 150,
  'Golf Course': 400, 'National Park': 3000, 'State or Provincial Park': 1500, 'Park': 120,
  'Beach': 200, 'University': 300, 'College and University': 250, 'Hospital': 100,
  'Shopping Mall': 120, 'Shopping Plaza': 80, 'Cemetery': 200, 'Campground': 150,
  'Supermarket': 30, 'Grocery Store': 20, 'Department Store': 40, 'Big Box Store': 50,
  'Warehouse or Wholesale Store': 50, 'Hotel': 35, 'Resort': 150, 'Convention Center': 100,
  'Train Station': 80, 'Rail Station': 80, 'Bus Station': 30, 'Metro Station': 40, 'Port': 300,
  'Marina': 150, 'Parking': 30, 'Fuel Station': 20, 'School': 60, 'Primary and Secondary School': 60,
  'Museum': 50, 'Performing Arts Venue': 40, 'Movie Theater': 35, 'Gym and Studio': 20,
  'Sports Club': 50, 'Swimming Pool': 25, 'Playground': 25, 'Garden': 60, 'Plaza': 50,
  'Coffee Shop': 10, 'Café': 10, 'Bar': 12, 'Restaurant': 15, 'Fast Food Restaurant': 12,
  'ATM': 3, 'Bus Stop': 5, 'Home (private)': 15, 'Office': 20,
};

const BY_CATEGORY: Record<string, number> = {
  'Arts and Entertainment': 40, 'Business and Professional Services': 20, 'Community and Government': 30,
  'Dining and Drinking': 12, 'Event': 50, 'Health and Medicine': 20, 'Landmarks and Outdoors': 60,
  'Retail': 15, 'Sports and Recreation': 40, 'Travel and Transportation': 40, 'Nightlife Spot': 15,
};

export function defaultRadius(path: string[]): number {
  for (let i = path.length - 1; i >= 0; i--) {
    const r = BY_NAME[path[i]];
    if (r !== undefined) return r;
  }
  return BY_CATEGORY[path[0]] ?? 15;
}
