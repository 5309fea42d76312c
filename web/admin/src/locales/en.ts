import { kitMessagesEn } from '@collectionkit/vue'

/**
 * en is the admin's English catalog, the default: the components' words
 * (kitMessagesEn, under `kit.`) and the app's own (under `admin.`), in
 * vue-i18n's message syntax (`{name}` values, `one | other` plurals).
 */
export const en = {
  ...kitMessagesEn,
  admin: {
    appName: 'kit admin',
    signIn: {
      title: 'Sign in to kit',
      email: 'Email',
      password: 'Password',
      submit: 'Sign in',
      pending: 'Signing in…',
      invalid: 'Invalid email or password.',
    },
    layout: {
      skip: 'Skip to content',
      menu: 'Menu',
      team: 'Team',
      chooseTeam: 'Choose a team',
      collections: 'Collections',
      activity: 'Activity',
      signOut: 'Sign out',
      theme: 'Theme',
      themeSystem: 'System theme',
      themeLight: 'Light',
      themeDark: 'Dark',
      language: 'Language',
      notMemberTitle: 'You are not a member of this team',
      notMemberBody: 'The team “{team}” does not exist or you have not been added to it. Ask one of its owners to invite you, or open one of your teams.',
      alsoViewing: 'Also viewing this record',
      recordActivity: 'Activity of this record',
    },
    toast: {
      // {what} is the record: the collection's name for one record and its title (Product “Lamp”).
      create: '{what} created.',
      update: '{what} saved.',
      delete: '{what} deleted.',
      // {label} is the collection's name, in lower case.
      createMany: '{count} {label} created.',
      updateMany: '{count} {label} saved.',
      deleteMany: '{count} {label} deleted.',
      notDeleted: 'Not deleted',
      notSaved: 'Not saved',
      couldNotLoad: 'Could not load',
      checkFields: '{what}: check the marked fields.',
      failed: '{what}: {message}',
      dismiss: 'Dismiss',
    },
    collection: {
      unknown: 'Unknown collection {key}.',
      readOnly: 'Read-only',
      addChild: '+ Child',
      addChildTo: 'Add a child to {name}',
    },
    filters: {
      form: 'Add a filter',
      field: 'Field',
      choose: 'Choose…',
      condition: 'Condition',
      value: 'Value',
      add: 'Add filter',
      active: 'Active filters',
      remove: 'Remove filter on {field}',
      toggle: 'Filters',
      toggleCount: 'Filters ({count})',
      ops: {
        eq: 'equals',
        ne: 'is not',
        contains: 'contains',
        startsWith: 'starts with',
        gt: 'greater than',
        lt: 'less than',
        isNull: 'is empty',
      },
    },
    home: {
      welcome: 'Welcome',
      noTeams: 'You are not a member of any team yet.',
    },
    activity: {
      title: 'Activity',
      ofRecord: 'Activity of record {id}',
      wholeTeam: 'Show the whole team',
    },
    cells: {
      yes: 'Yes',
      no: 'No',
      items: '{count} item | {count} items',
      empty: 'empty',
    },
  },
}
