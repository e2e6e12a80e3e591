'use strict';

const MasterBrandA = require('../models/MasterBrandA');
const MasterBrandB = require('../models/MasterBrandB');
const MasterBrandC = require('../models/MasterBrandC');

const BRANDS = { A: MasterBrandA, B: MasterBrandB, C: MasterBrandC };

// Import contacts into the given brand; returns the created documents and the rejected rows.
function importContacts(brand, rows) {
  const Model = BRANDS[brand];
  if (!Model) throw new Error(`unknown brand: ${brand}`);
  const created = [];
  const rejected = [];
  for (const row of rows) {
    try {
      created.push(Model.create(row));
    } catch (error) {
      rejected.push({ row, reason: error.message });
    }
  }
  return { created, rejected };
}

module.exports = { importContacts };
