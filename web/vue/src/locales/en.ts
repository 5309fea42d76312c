/**
 * kitMessagesEn is the English catalog of the components' words, under
 * `kit.` (an app merges it into its own catalog: `{ ...kitMessagesEn,
 * app: {...} }`). Messages use vue-i18n's syntax: `{name}` is a named
 * value, and `a | b` (one, other) or `a | b | c` (none, one, other) are
 * plural forms chosen by a count. The default translator of the plugin
 * (KitPluginOptions.t unset) reads this catalog.
 */
export const kitMessagesEn = {
  kit: {
    common: {
      loading: 'Loading…',
      loadingShort: 'Loading',
      couldNotLoad: 'Could not load',
      notFound: 'Not found',
      close: 'Close',
      edit: 'Edit',
      editNamed: 'Edit {name}',
      delete: 'Delete',
      deleteNamed: 'Delete {name}',
      move: 'Move {name}',
      // A title or a value quoted in running text.
      quoted: '“{text}”',
    },
    table: {
      search: 'Search...',
      clearSearch: 'Clear search',
      selectAll: 'Select all rows',
      select: 'Select',
      selectNamed: 'Select {name}',
      order: 'Order',
      actions: 'Actions',
      dragHint: 'Drag, or press Arrow Up or Arrow Down, to reorder',
      empty: 'No results',
      createdBy: 'Created by',
      createdAt: 'Created',
      updatedBy: 'Updated by',
      updatedAt: 'Updated',
      columns: 'Columns',
      visibleColumns: 'Visible columns',
      create: 'Create',
      createNamed: 'Create {name}',
    },
    pagination: {
      label: 'Pagination',
      summary: 'Showing {from} to {to} of {total} results',
      perPage: 'Items per page',
      previous: 'Previous page',
      next: 'Next page',
    },
    tree: {
      dragHint: 'Drag, or press an arrow key: Up and Down among its siblings, Right into the node above, Left out of its parent',
    },
    presence: {
      alsoHere: 'Also here',
      viewing: 'Viewing',
      viewers: 'Viewers',
      alsoViewingRecord: 'Also viewing this record',
    },
    form: {
      blocked: 'Not saved: {error}',
      confirmNamed: 'Delete “{name}”? This cannot be undone.',
      confirmNamedMany: 'Delete these {count} items? This cannot be undone.',
      andMore: 'and {count} more',
      confirmUnnamed: 'Delete this item? This cannot be undone. | Delete {count} items? This cannot be undone.',
      cancel: 'Cancel',
      create: 'Create',
      creating: 'Creating…',
      save: 'Save',
      saving: 'Saving…',
      deleting: 'Deleting…',
      fieldsNeedAttention: 'Not saved: one field needs your attention, see below. | Not saved: {count} fields need your attention, see below.',
      titleCreate: 'Create {name}',
      titleEdit: 'Edit {name}',
      titleDelete: 'Delete {name}',
      conflict: 'This record was changed by someone else after you opened it, so your changes were not saved.',
      nowStored: 'Now stored:',
      reload: 'Load the current version',
      overwrite: 'Save mine over it',
    },
    field: {
      decimalHint: 'Up to {precision} digits, {scale} after the point',
      notNumber: '{label} must be a number.',
      notWhole: '{label} must be a whole number.',
      decimalFormat: '{label} must be a number like {example}.',
      decimalScale: '{label} must have at most {count} digit after the point. | {label} must have at most {count} digits after the point.',
      decimalWhole: '{label} must have at most {count} digit before the point. | {label} must have at most {count} digits before the point.',
      url: '{label} must be a full address, such as {example}.',
      preview: '{label} preview',
      jsonEmpty: '{label} is empty: type a JSON object such as {example}, or remove it.',
      jsonInvalid: '{label} is not valid JSON yet: check its quotes, commas and brackets.',
      jsonObject: '{label} must be a JSON object, such as {example}.',
      listItem: '{label} item {n}',
      listValue: '{label} value {n}',
      remove: 'Remove {name}',
      addItem: 'Add item',
      addValue: 'Add value',
    },
    workspace: {
      back: 'Back to the list',
      created: 'Created',
      updated: 'Updated',
      missing: 'This record is no longer there. Pick another one from the list.',
      empty: 'Select a record in the list to see it here.',
    },
    activity: {
      empty: 'No activity found',
      today: 'Today',
      yesterday: 'Yesterday',
      field: 'Field',
      oldValue: 'Old value',
      newValue: 'New value',
      noChanges: 'No field changes recorded',
      user: 'User',
      when: 'When',
      record: 'Record',
      open: 'Open',
      showChanges: 'Show {count} change | Show {count} changes',
      hideChanges: 'Hide {count} change | Hide {count} changes',
      filters: 'Filter activity',
      collection: 'Collection',
      allCollections: 'All collections',
      operation: 'Operation',
      allOperations: 'All operations',
      byUser: 'User',
      everyone: 'Everyone',
      from: 'From',
      to: 'To',
      // The operations: their names in the filter and on the badge.
      operations: {
        create: 'Create',
        update: 'Update',
        delete: 'Delete',
        move: 'Move',
        reorder: 'Reorder',
      },
      // What a row says: {user} and {record} are the user's name and the
      // record's title, {collection} the collection's name for one record.
      sentence: {
        create: '{user} created {collection} {record}',
        update: '{user} updated {collection} {record}',
        delete: '{user} deleted {collection} {record}',
        move: '{user} moved {collection} {record}',
        reorder: '{user} reordered {collection} {record}',
        other: '{user} changed {collection} {record}',
      },
      detailTitle: '{operation}: {collection} “{record}”',
    },
  },
}

/** KitMessages is the shape of a catalog of the components' words: every key of kitMessagesEn, each a string. */
export type KitMessages = Catalog<typeof kitMessagesEn>

/** Catalog is the shape of a message catalog like T: the same keys, every message a string. */
export type Catalog<T> = { [K in keyof T]: T[K] extends string ? string : Catalog<T[K]> }
