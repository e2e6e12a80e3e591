'use strict';

const { Schema, model } = require('../lib/schema');

// Contacts of the "A" master brand (emea region).
const masterBrandASchema = new Schema({
  email: { type: String, required: true },
  displayName: { type: String },
  locale: { type: String, default: 'en' },
  unsubscribed: { type: Boolean, default: false },
  createdAt: { type: Date },
});

module.exports = model('MasterBrandA', masterBrandASchema);
