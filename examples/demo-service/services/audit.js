'use strict';

const ValidationLog = require('../models/ValidationLog');

// Record the outcome of one import run.
function recordImport(brand, result) {
  return ValidationLog.create({
    brand,
    importedAt: new Date(),
    checked: result.created.length + result.rejected.length,
    errors: result.rejected.map((r) => r.reason),
  });
}

module.exports = { recordImport };
