import { describe, expect, it } from 'vitest'
import { formatBytes } from '../src/index'

describe('formatBytes', () => {
  it.each([
    [0, 'en', '0 byte'],
    [1023, 'en', '1,023 byte'],
    [1536, 'en', '1.5 kB'],
    [10 * 1024 * 1024, 'en', '10 MB'],
    [5 * 1024 ** 4, 'en', '5,120 GB'],
    [1536, 'de', '1,5 kB'],
  ])('says %d bytes in %s as %s', (bytes, locale, want) => {
    expect(formatBytes(bytes, locale)).toBe(want)
  })
})
