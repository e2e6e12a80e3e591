'use strict';

const { Schema, model } = require('../lib/schema');

// One entry per import run: which brand was imported and what failed validation.
const validationLogSchema = new Schema({
  brand: { type: String, required: true },
  importedAt: { type: Date, required: true },
  checked: { type: Number, default: 0 },
  errors: { type: Array },
});

module.exports = model('ValidationLog', validationLogSchema);
