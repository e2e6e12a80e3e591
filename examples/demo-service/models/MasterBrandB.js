'use strict';

const { Schema, model } = require('../lib/schema');

// Contacts of the "B" master brand (americas region).
const masterBrandBSchema = new Schema({
  email: { type: String, required: true },
  displayName: { type: String },
  locale: { type: String, default: 'en' },
  bounceCount: { type: Number, default: 0 },
  createdAt: { type: Date },
});

module.exports = model('MasterBrandB', masterBrandBSchema);
