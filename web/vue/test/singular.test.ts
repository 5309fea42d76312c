import { describe, expect, it } from 'vitest'
import { singular } from '../src/components/util'

describe('singular', () => {
  it("names one record of a collection: 'Create <Singular>' is proper English for the common plurals", () => {
    const cases: Array<[string, string]> = [
      ['Products', 'Product'],
      ['Categories', 'Category'],
      ['Boxes', 'Box'],
      ['People', 'Person'],
      ['Sales people', 'Sales person'],
      ['News', 'News'],
      ['Series', 'Series'],
      ['Addresses', 'Address'],
      ['Statuses', 'Status'],
      ['Houses', 'House'],
      ['Cases', 'Case'],
      ['Matches', 'Match'],
      ['Caches', 'Cache'],
      ['Wishes', 'Wish'],
      ['Movies', 'Movie'],
      ['Heroes', 'Hero'],
      ['Photos', 'Photo'],
      ['Analyses', 'Analysis'],
      ['Children', 'Child'],
      ['Leaves', 'Leaf'],
      ['Blog posts', 'Blog post'],
      ['USERS', 'USER'],
      ['Crates', 'Crate'],
      ['Class', 'Class'],
      ['Inventory', 'Inventory'],
      ['', ''],
    ]
    for (const [plural, want] of cases) expect(singular(plural), plural).toBe(want)
  })
})
