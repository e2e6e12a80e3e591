'use strict';

const { Schema, model } = require('../lib/schema');

// Contacts of the "C" master brand (apac region).
const masterBrandCSchema = new Schema({
  email: { type: String, required: true },
  displayName: { type: String },
  locale: { type: String, default: 'en' },
  verifiedAt: { type: Date },
  createdAt: { type: Date },
});

module.exports = model('MasterBrandC', masterBrandCSchema);
