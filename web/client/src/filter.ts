/** A filter operator kit's list endpoint accepts. */
export type FilterOperator =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in'
  | 'nin'
  | 'contains'
  | 'startsWith'
  | 'isNull'

/** A scalar filter value: kit compares decimals and dates given as strings. */
export type FilterValue = string | number | boolean | null

/** kit's filter JSON: field name to a bare value (equality) or an operator map. */
export type FilterObject = Record<string, FilterValue | Partial<Record<FilterOperator, FilterValue | FilterValue[]>>>

/**
 * FilterBuilder builds kit's `filter` JSON one condition at a time:
 *
 *     filter().eq('isActive', true).gte('price', '10').in('sku', ['a', 'b']).build()
 *     // {"isActive":{"eq":true},"price":{"gte":"10"},"sku":{"in":["a","b"]}}
 *
 * Several operators on one field are combined (all must hold). A second use
 * of the same operator on a field replaces the first.
 */
export class FilterBuilder {
  private readonly conditions: Record<string, Partial<Record<FilterOperator, FilterValue | FilterValue[]>>> = {}

  private add(field: string, op: FilterOperator, value: FilterValue | FilterValue[]): this {
    const ops = (this.conditions[field] ??= {})
    ops[op] = value
    return this
  }

  /** eq: field equals value (`null` matches a missing value). */
  eq(field: string, value: FilterValue): this {
    return this.add(field, 'eq', value)
  }
  /** ne: field differs from value; records where the field is null match too. */
  ne(field: string, value: FilterValue): this {
    return this.add(field, 'ne', value)
  }
  /** gt: field is greater than value (text, numbers, decimals, dates). */
  gt(field: string, value: FilterValue): this {
    return this.add(field, 'gt', value)
  }
  /** gte: field is greater than or equal to value. */
  gte(field: string, value: FilterValue): this {
    return this.add(field, 'gte', value)
  }
  /** lt: field is less than value. */
  lt(field: string, value: FilterValue): this {
    return this.add(field, 'lt', value)
  }
  /** lte: field is less than or equal to value. */
  lte(field: string, value: FilterValue): this {
    return this.add(field, 'lte', value)
  }
  /** in: field is one of values (at most 100). */
  in(field: string, values: FilterValue[]): this {
    return this.add(field, 'in', values)
  }
  /** nin: field is none of values; records where the field is null match too. */
  nin(field: string, values: FilterValue[]): this {
    return this.add(field, 'nin', values)
  }
  /** contains: a text field contains value, case-insensitively. */
  contains(field: string, value: string): this {
    return this.add(field, 'contains', value)
  }
  /** startsWith: a text field starts with value. */
  startsWith(field: string, value: string): this {
    return this.add(field, 'startsWith', value)
  }
  /** isNull: the field is null (true) or is not (false). */
  isNull(field: string, value = true): this {
    return this.add(field, 'isNull', value)
  }

  /** build returns the filter object; an empty builder gives `{}`. */
  build(): FilterObject {
    const out: FilterObject = {}
    for (const [field, ops] of Object.entries(this.conditions)) out[field] = { ...ops }
    return out
  }

  /** toJSON makes `JSON.stringify(builder)` produce the filter JSON. */
  toJSON(): FilterObject {
    return this.build()
  }
}

/** filter starts a FilterBuilder. */
export function filter(): FilterBuilder {
  return new FilterBuilder()
}
