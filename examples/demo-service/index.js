'use strict';

const { importContacts } = require('./services/brands');
const { recordImport } = require('./services/audit');

const rows = [
  { email: 'ana@example.com', displayName: 'Ana' },
  { displayName: 'No Email' },
];

const result = importContacts('A', rows);
const entry = recordImport('A', result);
console.log(`imported ${result.created.length}, rejected ${result.rejected.length}`);
console.log(JSON.stringify(entry.errors));
